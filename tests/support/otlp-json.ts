// Reading OTLP/JSON traces (what the live push sends and GET /api/sessions/:id/otel answers) in tests.

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: { key: string; value: OtlpValue }[];
}

export interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

export const spansOf = (req: OtlpRequest): OtlpSpan[] =>
  req.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));

/** An attribute's value as JavaScript: a string, a number, a boolean or a list of strings. */
export function attr(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if (value.arrayValue) return value.arrayValue.values.map((v) => v.stringValue);
  return (
    value.stringValue ??
    (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue))
  );
}

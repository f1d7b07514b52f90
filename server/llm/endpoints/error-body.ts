// The SDK reads an error's details only from `{error: {...}}`; vLLM and other FastAPI servers answer
// `{object: "error", message, param, ...}` at the top level, and Gemini's OpenAI-compatible API a list
// `[{error: {...}}]`, both of which the SDK reports as "(no body)". This fetch wrapper puts such bodies
// in the SDK's shape, so rejections are read the same everywhere.
export function normalizingErrorFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok) return response;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return rebuilt(response, text);
    }
    const first: unknown = Array.isArray(body) && body.length === 1 ? body[0] : undefined;
    if (isRecord(first) && isRecord(first.error)) return rebuilt(response, JSON.stringify(first));
    const top = isRecord(body) ? body : null;
    if (top && top.error === undefined && (typeof top.message === "string" || typeof top.detail !== "undefined")) {
      const message = typeof top.message === "string" ? top.message : JSON.stringify(top.detail);
      return rebuilt(response, JSON.stringify({ error: { ...top, message } }));
    }
    return rebuilt(response, text);
  };
}

function rebuilt(response: Response, text: string): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// OpenTelemetry output of the engine's cycles, through the OTel JS SDK: GET /api/sessions/:id/otel
// serialises a session's traces with the SDK's OTLP/JSON serializer, and OtlpPush sends each finished
// cycle's trace live to the configured OTLP/HTTP endpoint (BatchSpanProcessor + OTLPTraceExporter,
// whose retries apply). The push never reaches into the engine: it listens to the monitor bus, and a
// dead endpoint only shows in its state.
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { ExportResultCode } from "@opentelemetry/core";
import type { TelemetryStatus } from "../../lib/api/telemetry";
import type { MonitorEvent } from "../../lib/events/schemas";
import { CycleCollector, emitCycleTrace, type SpanNaming } from "./genai-spans";

const SERVICE_NAME = "maisaka";

const resource = () => resourceFromAttributes({ "service.name": SERVICE_NAME });

/** Every whole cycle of the session (events read page by page) as an OTLP/JSON ExportTraceServiceRequest. */
export async function sessionTracesJson(
  pages: AsyncIterable<MonitorEvent[]>,
  sessionId: string,
  naming: SpanNaming,
): Promise<{ json: Buffer; spans: number; traces: number }> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resource(), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer(SERVICE_NAME);
  let traces = 0;
  const collector = new CycleCollector((id, events) => {
    if (emitCycleTrace(tracer, id, events, naming)) traces++;
  });
  for await (const page of pages) for (const event of page) collector.add(event);
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  const bytes = JsonTraceSerializer.serializeRequest([...spans]) ?? new Uint8Array();
  await provider.shutdown();
  return { json: Buffer.from(bytes), spans: spans.length, traces };
}

export interface OtlpPushOptions {
  endpoint: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxQueuedSpans: number;
  naming: SpanNaming;
  now(): number;
  /** Delay of the batch processor (default 1 s; tests shorten it). */
  scheduledDelayMs?: number;
}

/** The exporter seen through its results: what the state panel shows. */
class CountingExporter implements SpanExporter {
  exported = 0;
  failed = 0;
  inFlight = 0;
  lastOkAt: number | null = null;
  lastErrorAt: number | null = null;
  lastError: string | null = null;

  constructor(
    private readonly inner: SpanExporter,
    private readonly now: () => number,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    this.inFlight += spans.length;
    this.inner.export(spans, (result) => {
      this.inFlight -= spans.length;
      if (result.error === undefined && result.code === ExportResultCode.SUCCESS) {
        this.exported += spans.length;
        this.lastOkAt = this.now();
      } else {
        this.failed += spans.length;
        this.lastErrorAt = this.now();
        this.lastError = result.error?.message ?? "export failed";
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Pushes every finished cycle as a trace. Feed it the bus's events (add); read its state (status). */
export class OtlpPush {
  private readonly exporter: CountingExporter;
  private readonly provider: BasicTracerProvider;
  private readonly collector: CycleCollector;
  private ended = 0;
  private dropped = 0;

  constructor(private readonly opts: OtlpPushOptions) {
    this.exporter = new CountingExporter(
      new OTLPTraceExporter({ url: opts.endpoint, headers: opts.headers, timeoutMillis: opts.timeoutMs }),
      () => opts.now(),
    );
    this.provider = new BasicTracerProvider({
      resource: resource(),
      spanProcessors: [
        new BatchSpanProcessor(this.exporter, {
          // Our own cap (maxQueuedSpans) drops whole cycles first; the processor's queue never overflows.
          maxQueueSize: opts.maxQueuedSpans * 2,
          maxExportBatchSize: 512,
          scheduledDelayMillis: opts.scheduledDelayMs ?? 1000,
          exportTimeoutMillis: opts.timeoutMs,
        }),
      ],
    });
    const tracer = this.provider.getTracer(SERVICE_NAME);
    this.collector = new CycleCollector((sessionId, events) => {
      // A cycle's spans: the root, up to two chat spans, one per tool call.
      const spans = 3 + events.filter((e) => e.type === "tool.execution").length;
      if (this.queued + spans > opts.maxQueuedSpans) {
        this.dropped += spans;
        return;
      }
      if (emitCycleTrace(tracer, sessionId, events, opts.naming)) this.ended += spans;
    });
  }

  /** Spans handed to the processor and not yet settled by an export. */
  private get queued(): number {
    return Math.max(0, this.ended - this.exporter.exported - this.exporter.failed);
  }

  /** A monitor event (the bus listener): never throws. */
  add(event: MonitorEvent): void {
    try {
      if (event.type === "session.stop") this.collector.forget(event.sessionId);
      else this.collector.add(event);
    } catch (error) {
      this.exporter.lastError = `building spans failed: ${error instanceof Error ? error.message : String(error)}`;
      this.exporter.lastErrorAt = this.opts.now();
    }
  }

  status(): TelemetryStatus {
    const e = this.exporter;
    const state =
      e.lastErrorAt !== null && (e.lastOkAt === null || e.lastErrorAt > e.lastOkAt)
        ? "error"
        : e.lastOkAt
          ? "ok"
          : "idle";
    return {
      enabled: true,
      endpoint: this.opts.endpoint,
      state,
      lastOkAt: e.lastOkAt,
      lastErrorAt: e.lastErrorAt,
      lastError: e.lastError,
      exportedSpans: e.exported,
      failedSpans: e.failed,
      queuedSpans: this.queued,
      droppedSpans: this.dropped,
    };
  }

  /** Sends what is queued (bounded by the exporter's timeout), then stops. */
  async close(): Promise<void> {
    await this.provider.shutdown().catch(() => undefined);
  }
}

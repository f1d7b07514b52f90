// The telemetry part of the server: the span naming of GET /api/sessions/:id/otel and, with config
// telemetry.otlp, the live push fed by the monitor bus.
import type { TelemetryStatus } from "../../lib/api/telemetry";
import { DISABLED_TELEMETRY } from "../../lib/api/telemetry";
import type { MaisakaConfig } from "../../lib/config/schema";
import type { MonitorBus } from "../monitor/bus";
import type { SpanNaming } from "./genai-spans";
import { OtlpPush } from "./otel";

export interface Telemetry {
  naming: SpanNaming;
  status(): TelemetryStatus;
  /** Pushes what is queued (within the exporter's timeout), then stops listening. */
  close(): Promise<void>;
}

export function startTelemetry(
  config: MaisakaConfig,
  bus: MonitorBus,
  now: () => number,
  opts: { scheduledDelayMs?: number } = {},
): Telemetry {
  // The models are reached through OpenAI-compatible chat-completions APIs (server/llm).
  const naming: SpanNaming = { provider: "openai", agentName: config.bot.nickname };
  const otlp = config.telemetry.otlp;
  if (!otlp) return { naming, status: () => DISABLED_TELEMETRY, close: async () => undefined };
  const push = new OtlpPush({ ...otlp, naming, now, scheduledDelayMs: opts.scheduledDelayMs });
  const unsubscribe = bus.subscribe((event) => push.add(event));
  return {
    naming,
    status: () => push.status(),
    async close() {
      unsubscribe();
      await push.close();
    },
  };
}

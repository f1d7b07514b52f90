// GET /api/telemetry: the live OTLP push's state (config telemetry.otlp), shown on the dashboard.
import { z } from "zod";

export const telemetryStatusSchema = z.object({
  /** False: no telemetry.otlp endpoint configured (GET /api/sessions/:id/otel still answers). */
  enabled: z.boolean(),
  endpoint: z.string().nullable(),
  /** idle: nothing exported yet; ok/error: the last export's outcome. */
  state: z.enum(["disabled", "idle", "ok", "error"]),
  lastOkAt: z.number().nullable(),
  lastErrorAt: z.number().nullable(),
  lastError: z.string().nullable(),
  exportedSpans: z.number().int(),
  /** Spans of exports that failed after the exporter's retries. */
  failedSpans: z.number().int(),
  /** Handed to the exporter and not yet settled. */
  queuedSpans: z.number().int(),
  /** Cycles not pushed because the queue was full (counted in spans). */
  droppedSpans: z.number().int(),
});
export type TelemetryStatus = z.infer<typeof telemetryStatusSchema>;

export const DISABLED_TELEMETRY: TelemetryStatus = {
  enabled: false,
  endpoint: null,
  state: "disabled",
  lastOkAt: null,
  lastErrorAt: null,
  lastError: null,
  exportedSpans: 0,
  failedSpans: 0,
  queuedSpans: 0,
  droppedSpans: 0,
};

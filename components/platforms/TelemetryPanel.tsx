"use client";
// The live OTLP push's state (GET /api/telemetry): endpoint, last export's outcome, span counts.
import { useQuery } from "@tanstack/react-query";
import { api } from "../../lib/client/api";
import { formatAgo } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import { Badge, type Tone } from "../ui/Badge";
import { ErrorState } from "../ui/States";

const POLL_MS = 5_000;

const tones: Record<"idle" | "ok" | "error", Tone> = { idle: "muted", ok: "ok", error: "bad" };

export function TelemetryPanel() {
  const t = useT();
  const now = useNow();
  const status = useQuery({ queryKey: queryKeys.telemetry, queryFn: api.telemetry, refetchInterval: POLL_MS });
  const s = status.data;
  return (
    <section className="card" data-testid="telemetry-panel">
      <h2>{t("telemetry.title")}</h2>
      {status.isError && <ErrorState title={t("common.loadTelemetry")} error={status.error} />}
      {s && !s.enabled && <p className="muted">{t("telemetry.disabled")}</p>}
      {s && s.enabled && s.state !== "disabled" && (
        <>
          <p>
            <Badge tone={tones[s.state]} testId="telemetry-state">
              {t(`telemetry.state.${s.state}`)}
            </Badge>{" "}
            <span className="mono small">{s.endpoint}</span>
          </p>
          <p className="small">
            {t("telemetry.counts", {
              exported: s.exportedSpans,
              queued: s.queuedSpans,
              failed: s.failedSpans,
              dropped: s.droppedSpans,
            })}
          </p>
          {s.lastOkAt !== null && (
            <p className="muted small">{t("telemetry.lastOk", { when: formatAgo(s.lastOkAt, now) })}</p>
          )}
          {s.state === "error" && s.lastError && <p className="form-error">{s.lastError}</p>}
        </>
      )}
    </section>
  );
}

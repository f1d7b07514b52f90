"use client";
// The model endpoints beside the tool providers: kind, what each learned, last error, latency, tokens.
import { useQuery } from "@tanstack/react-query";
import type { EndpointStatus } from "../../lib/llm/endpoints";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { ErrorState, Loading } from "../ui/States";

function learned(e: EndpointStatus): string {
  const parts: string[] = [];
  if (!e.learned.streaming) parts.push("no streaming");
  if (e.learned.tokenLimitParam) parts.push(`limit as ${e.learned.tokenLimitParam}`);
  const dropped = e.learned.unsupportedParams.filter((p) => p !== "stream");
  if (dropped.length) parts.push(`without ${dropped.join(", ")}`);
  return parts.join("; ") || "nothing yet";
}

const ms = (v: number | null): string => (v === null ? "–" : `${v} ms`);

export function ModelEndpoints() {
  const list = useQuery({ queryKey: queryKeys.endpoints, queryFn: api.endpoints, refetchInterval: 10_000 });
  if (list.isPending) return <Loading label="Loading model endpoints" />;
  if (list.isError) return <ErrorState title="Model endpoints unavailable" error={list.error} />;
  return (
    <section className="panel model-endpoints" data-testid="model-endpoints">
      <div className="panel-title">Model endpoints{list.data.simulated ? " (SIMULATED)" : ""}</div>
      <ul className="endpoint-list">
        {list.data.endpoints.map((e) => (
          <li key={e.name} data-testid={`endpoint-${e.name}`}>
            <strong>{e.name}</strong> <span className="muted small">{e.kind}</span>
            <div className="small">learned: {learned(e)}</div>
            <div className="small muted">
              {e.calls} calls, {e.failures} failed · p50 {ms(e.latencyMs.p50)} · p95 {ms(e.latencyMs.p95)} ·{" "}
              {e.promptTokens}+{e.completionTokens} tokens
            </div>
            {e.lastError && <div className="bad-text small text">last error: {e.lastError.message}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}

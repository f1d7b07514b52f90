"use client";
// The model endpoints beside the tool providers: kind, what each learned, last error, latency, tokens.
import { useQuery } from "@tanstack/react-query";
import type { EndpointStatus } from "../../lib/llm/endpoints";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import type { Translate } from "../../lib/i18n/messages";
import { ErrorState, Loading } from "../ui/States";

function learned(e: EndpointStatus, t: Translate): string {
  const parts: string[] = [];
  if (!e.learned.streaming) parts.push(t("endpoints.noStreaming"));
  if (e.learned.tokenLimitParam) parts.push(t("endpoints.limitAs", { param: e.learned.tokenLimitParam }));
  const dropped = e.learned.unsupportedParams.filter((p) => p !== "stream");
  if (dropped.length) parts.push(t("endpoints.without", { params: dropped.join(", ") }));
  for (const { model, fields } of e.learned.passBack)
    parts.push(t("endpoints.passBack", { model, fields: fields.join(", ") }));
  return parts.join("; ") || t("endpoints.nothing");
}

const ms = (v: number | null): string => (v === null ? "–" : `${v} ms`);

export function ModelEndpoints() {
  const t = useT();
  const list = useQuery({ queryKey: queryKeys.endpoints, queryFn: api.endpoints, refetchInterval: 10_000 });
  if (list.isPending) return <Loading label={t("endpoints.loading")} />;
  if (list.isError) return <ErrorState title={t("endpoints.error")} error={list.error} />;
  return (
    <section className="panel model-endpoints" data-testid="model-endpoints">
      <div className="panel-title">
        {t("endpoints.title")}
        {list.data.simulated ? t("endpoints.simulated") : ""}
      </div>
      <ul className="endpoint-list">
        {list.data.endpoints.map((e) => (
          <li key={e.name} data-testid={`endpoint-${e.name}`}>
            <strong>{e.name}</strong> <span className="muted small">{e.kind}</span>
            <div className="small">{t("endpoints.learned", { what: learned(e, t) })}</div>
            <div className="small muted">
              {t("endpoints.stats", {
                calls: e.calls,
                failures: e.failures,
                p50: ms(e.latencyMs.p50),
                p95: ms(e.latencyMs.p95),
                prompt: e.promptTokens,
                completion: e.completionTokens,
              })}
            </div>
            {e.lastError && (
              <div className="bad-text small text">{t("endpoints.lastError", { error: e.lastError.message })}</div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

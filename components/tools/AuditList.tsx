"use client";
// Who switched which tool, where, when and why; newest first.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { ErrorState } from "../ui/States";

const FIRST = 30;

export function AuditList() {
  const t = useT();
  const audit = useQuery({ queryKey: queryKeys.audit, queryFn: async () => (await api.audit()).entries });
  const [all, setAll] = useState(false);
  const entries = audit.data ?? [];
  return (
    <section className="panel audit" aria-label={t("switchAudit.label")} data-testid="audit-list">
      <div className="panel-title">{t("switchAudit.title")}</div>
      {audit.isError && <ErrorState title={t("switchAudit.loadError")} error={audit.error} />}
      {audit.isSuccess && entries.length === 0 && <div className="muted small">{t("switchAudit.none")}</div>}
      <ol className="audit-list">
        {(all ? entries : entries.slice(0, FIRST)).map((e) => (
          <li key={e.id} data-tool={e.toolName}>
            <div>
              <span className="mono">{e.toolName}</span>{" "}
              <span className={e.enabled ? "ok-text" : "bad-text"}>
                {e.oldEnabled === null
                  ? t("switchAudit.inherited")
                  : `${t(e.oldEnabled ? "switchAudit.on" : "switchAudit.off")} → `}
                {t(e.enabled ? "switchAudit.on" : "switchAudit.off")}
              </span>{" "}
              <span className="muted">
                {e.scope === "global" ? (
                  t("switchAudit.globally")
                ) : (
                  <>
                    {t("switchAudit.for")}{" "}
                    <Link href={`/sessions/${encodeURIComponent(e.sessionId ?? "")}`}>{e.sessionId}</Link>
                  </>
                )}
              </span>
            </div>
            <div className="muted small">
              {formatDateTime(e.ts)} · {e.actor.name}
              {e.reason && <span className="text"> — “{e.reason}”</span>}
            </div>
          </li>
        ))}
      </ol>
      {entries.length > FIRST && (
        <button type="button" className="linkish" onClick={() => setAll(!all)}>
          {all ? t("switchAudit.fewer") : t("switchAudit.all", { count: entries.length })}
        </button>
      )}
    </section>
  );
}

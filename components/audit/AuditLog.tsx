"use client";
// One list of every operator change (GET /api/audit), newest first, filtered by actor, action,
// target and time; "Load more" continues by cursor. Values are rendered as text, never as markup.
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { useThrottled } from "../../lib/client/react/use-throttled";
import type { MessageKey } from "../../lib/i18n/messages";
import { ErrorState } from "../ui/States";

const PAGE = 100;

/** A datetime-local value as epoch ms (undefined when empty or invalid). */
function toEpoch(value: string): number | undefined {
  if (!value) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

function compact(value: unknown): string {
  if (value === null || value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The text filters, each an input with its placeholder and label. */
const TEXT_FILTERS: readonly { key: "actor" | "action" | "target"; hint: MessageKey; label: MessageKey }[] = [
  { key: "actor", hint: "audit.actorHint", label: "audit.actor" },
  { key: "action", hint: "audit.actionHint", label: "audit.action" },
  { key: "target", hint: "audit.targetHint", label: "audit.target" },
];

export function AuditLog() {
  const t = useT();
  const [filters, setFilters] = useState({ actor: "", action: "", target: "", from: "", to: "" });
  const settled = useThrottled(filters, 300);
  const query = {
    actor: settled.actor.trim() || undefined,
    action: settled.action.trim() || undefined,
    target: settled.target.trim() || undefined,
    from: toEpoch(settled.from),
    to: toEpoch(settled.to),
    limit: PAGE,
  };
  const audit = useInfiniteQuery({
    queryKey: queryKeys.auditLog(settled),
    queryFn: ({ pageParam }) => api.auditLog({ ...query, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  const set = (key: keyof typeof filters) => (e: { target: { value: string } }) =>
    setFilters((f) => ({ ...f, [key]: e.target.value }));

  return (
    <div className="page" data-testid="audit-page">
      <div className="page-head">
        <h1>{t("audit.title")}</h1>
        <span className="muted">
          {audit.data ? t(audit.hasNextPage ? "audit.countMore" : "audit.count", { count: rows.length }) : ""}
        </span>
      </div>
      <div className="toolbar" role="search" aria-label={t("audit.filter")}>
        {TEXT_FILTERS.map((f) => (
          <input
            key={f.key}
            className="input input-sm"
            placeholder={t(f.hint)}
            value={filters[f.key]}
            onChange={set(f.key)}
            aria-label={t(f.label)}
          />
        ))}
        <label className="small muted">
          {t("audit.from")}{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.from}
            onChange={set("from")}
            aria-label={t("audit.fromLabel")}
          />
        </label>
        <label className="small muted">
          {t("audit.to")}{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.to}
            onChange={set("to")}
            aria-label={t("audit.toLabel")}
          />
        </label>
      </div>
      {audit.isError && <ErrorState title={t("audit.loadError")} error={audit.error} />}
      {audit.isSuccess && rows.length === 0 && <div className="muted small">{t("audit.none")}</div>}
      <table className="table" aria-label={t("audit.entries")}>
        <thead>
          <tr>
            <th>{t("audit.col.when")}</th>
            <th>{t("audit.col.who")}</th>
            <th>{t("audit.action")}</th>
            <th>{t("audit.target")}</th>
            <th>{t("audit.col.before")}</th>
            <th>{t("audit.col.after")}</th>
            <th>{t("audit.col.reason")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id} data-action={e.action}>
              <td className="small nowrap">{formatDateTime(e.at)}</td>
              <td title={e.actor.id}>{e.actor.name}</td>
              <td className="mono small">{e.action}</td>
              <td className="small" title={e.target} data-testid="audit-target">
                {e.targetName ? (
                  <>
                    {e.targetName}
                    <div className="sub mono">{e.target.split(":")[0]}</div>
                  </>
                ) : (
                  <span className="mono">{e.target}</span>
                )}
              </td>
              <td className="mono small clip">{compact(e.before)}</td>
              <td className="mono small clip">{compact(e.after)}</td>
              <td className="text">{e.reason || <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {audit.hasNextPage && (
        <button
          type="button"
          className="btn btn-sm"
          disabled={audit.isFetchingNextPage}
          onClick={() => void audit.fetchNextPage()}
        >
          {t(audit.isFetchingNextPage ? "audit.loading" : "audit.more")}
        </button>
      )}
    </div>
  );
}

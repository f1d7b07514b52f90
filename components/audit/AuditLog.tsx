"use client";
// One list of every operator change (GET /api/audit), newest first, filtered by actor, action,
// target and time; "Load more" continues by cursor. Values are rendered as text, never as markup.
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useThrottled } from "../../lib/client/react/use-throttled";
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

export function AuditLog() {
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
        <h1>Audit</h1>
        <span className="muted">{audit.data ? `${rows.length}${audit.hasNextPage ? "+" : ""} changes` : ""}</span>
      </div>
      <div className="toolbar" role="search" aria-label="Filter the audit list">
        <input
          className="input input-sm"
          placeholder="Actor (name or id)"
          value={filters.actor}
          onChange={set("actor")}
          aria-label="Actor"
        />
        <input
          className="input input-sm"
          placeholder="Action (tool.toggle, account.create…)"
          value={filters.action}
          onChange={set("action")}
          aria-label="Action"
        />
        <input
          className="input input-sm"
          placeholder="Target contains"
          value={filters.target}
          onChange={set("target")}
          aria-label="Target"
        />
        <label className="small muted">
          from{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.from}
            onChange={set("from")}
            aria-label="From"
          />
        </label>
        <label className="small muted">
          to{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.to}
            onChange={set("to")}
            aria-label="To"
          />
        </label>
      </div>
      {audit.isError && <ErrorState title="Cannot load the audit list" error={audit.error} />}
      {audit.isSuccess && rows.length === 0 && <div className="muted small">No change matches.</div>}
      <table className="table" aria-label="Audit entries">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>Action</th>
            <th>Target</th>
            <th>Before</th>
            <th>After</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id} data-action={e.action}>
              <td className="small nowrap">{formatDateTime(e.at)}</td>
              <td title={e.actor.id}>{e.actor.name}</td>
              <td className="mono small">{e.action}</td>
              <td className="mono small">{e.target}</td>
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
          {audit.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}

"use client";
// One dense table of usage groups (task, model, endpoint or session): sortable by every column,
// virtualised so 10,000 sessions scroll as smoothly as four tasks.
import { useMemo, useState } from "react";
import { sortRows, type TableColumn, type UsageRow } from "../../lib/client/usage-charts";
import { formatUsd } from "../../lib/client/usage";
import { useT } from "../../lib/client/react/use-locale";
import type { SessionLabelSource } from "../../lib/client/session-label";
import type { MessageKey } from "../../lib/i18n/messages";
import { SessionName } from "../sessions/SessionName";
import { VirtualList } from "../ui/VirtualList";

const COLUMNS: { id: TableColumn; label: MessageKey; numeric: boolean }[] = [
  { id: "key", label: "usage.col.key", numeric: false },
  { id: "calls", label: "usage.col.calls", numeric: true },
  { id: "tokens", label: "usage.col.tokens", numeric: true },
  { id: "costUsd", label: "usage.col.cost", numeric: true },
  { id: "p50Ms", label: "usage.col.p50", numeric: true },
  { id: "p95Ms", label: "usage.col.p95", numeric: true },
  { id: "errors", label: "usage.col.errors", numeric: true },
];
const ROW_PX = 30;
const MAX_ROWS = 10;
const int = (n: number) => n.toLocaleString("en-US");
const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`);

interface Props {
  title: string;
  rows: readonly UsageRow[];
  /** Text of a key (task names are translated; an empty session key is "no session"). */
  keyLabel: (key: string) => string;
  /** A session table: its sessions by id (named, linked to their live view). */
  sessions?: ReadonlyMap<string, SessionLabelSource>;
  /** Not answered yet: the empty list says so instead of "no calls". */
  loading?: boolean;
  testId: string;
}

export function UsageTable({ title, rows, keyLabel, sessions, loading = false, testId }: Props) {
  const t = useT();
  const [sort, setSort] = useState<{ column: TableColumn; descending: boolean }>({
    column: "costUsd",
    descending: true,
  });
  const sorted = useMemo(() => sortRows(rows, sort.column, sort.descending), [rows, sort]);
  const click = (column: TableColumn) =>
    setSort((s) =>
      s.column === column ? { column, descending: !s.descending } : { column, descending: column !== "key" },
    );
  return (
    <section className="usage-table" data-testid={testId}>
      <h2>
        {title} <span className="muted small">{int(rows.length)}</span>
      </h2>
      <div className="usage-grid usage-grid-head" role="row">
        {COLUMNS.map((c) => (
          <button
            key={c.id}
            role="columnheader"
            className={`usage-sort ${c.numeric ? "num" : ""} ${sort.column === c.id ? "active" : ""}`}
            aria-sort={sort.column === c.id ? (sort.descending ? "descending" : "ascending") : "none"}
            onClick={() => click(c.id)}
          >
            {t(c.label)}
            {sort.column === c.id ? (sort.descending ? " ↓" : " ↑") : ""}
          </button>
        ))}
      </div>
      {/* The list is size-contained: its box gets the rows' height, up to ten rows. */}
      <div style={{ height: Math.min(MAX_ROWS, Math.max(1, rows.length)) * ROW_PX }}>
        <VirtualList
          items={sorted}
          getKey={(r) => r.key}
          estimateSize={() => ROW_PX}
          follow={false}
          className="usage-table-body"
          label={title}
          empty={<div className="muted usage-empty">{t(loading ? "usage.loading" : "usage.empty")}</div>}
          render={(r) => (
            <div className="usage-grid" role="row" data-testid="usage-row" data-key={r.key}>
              {sessions && r.key ? (
                <SessionName id={r.key} session={sessions.get(r.key)} href={`/sessions/${encodeURIComponent(r.key)}`} />
              ) : (
                <span className="ellipsis" title={r.key}>
                  {keyLabel(r.key)}
                </span>
              )}
              <span className="num">{int(r.calls)}</span>
              <span className="num" title={`${int(r.promptTokens)} prompt + ${int(r.completionTokens)} completion`}>
                {int(r.promptTokens + r.completionTokens)}
              </span>
              <span className="num" data-testid="usage-cost">
                {formatUsd(r.costUsd)}
                {r.unpricedCalls > 0 && (
                  <span className="sub" title={t("usage.unpricedHint")}>
                    {" "}
                    +{int(r.unpricedCalls)}?
                  </span>
                )}
              </span>
              <span className="num">{ms(r.p50Ms)}</span>
              <span className="num">{ms(r.p95Ms)}</span>
              <span className={`num ${r.errors > 0 ? "bad-text" : ""}`}>{int(r.errors)}</span>
            </div>
          )}
        />
      </div>
    </section>
  );
}

"use client";
// Two sessions: totals side by side, then their cycles aligned by position, each row same / changed /
// only in A / only in B with its first difference; a row opens its cycle diff (↑ ↓ and Enter too).
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type KeyboardEvent } from "react";
import { useT } from "../../lib/client/react/use-locale";
import { useSessionNames } from "../../lib/client/react/use-session-names";
import { formatUsd } from "../../lib/client/usage";
import type { MessageKey } from "../../lib/i18n/messages";
import { diffHref } from "../../lib/rerun/diff-api";
import type { CycleBrief, SessionDiff, SessionDiffRow, SessionTotals } from "../../lib/rerun/session-diff";
import { SessionName } from "../sessions/SessionName";
import { FirstDiff } from "./CycleDiffView";
import { StatusBadge } from "./StatusBadge";

const TOTALS: { key: keyof SessionTotals; label: MessageKey; format: (n: number) => string }[] = [
  { key: "cycles", label: "diff.sessions.cycles", format: (n) => n.toLocaleString() },
  { key: "messagesSent", label: "diff.sessions.sent", format: (n) => n.toLocaleString() },
  { key: "totalTokens", label: "diff.sessions.tokens", format: (n) => n.toLocaleString() },
  { key: "costUsd", label: "diff.sessions.cost", format: formatUsd },
];

/** Where a row leads: the cycle diff when both sides have the cycle, else the one side's replay. */
function rowHref(diff: SessionDiff, row: SessionDiffRow): string {
  if (row.a && row.b)
    return diffHref(
      { sessionId: diff.a.sessionId, cycleId: row.a.cycleId },
      { sessionId: diff.b.sessionId, cycleId: row.b.cycleId },
    );
  const [sessionId, cycle] = row.a ? [diff.a.sessionId, row.a] : [diff.b.sessionId, row.b as CycleBrief];
  return `/sessions/${encodeURIComponent(sessionId)}/replay?cycle=${encodeURIComponent(cycle.cycleId)}`;
}

export function SessionDiffView({ diff }: { diff: SessionDiff }) {
  const t = useT();
  const names = useSessionNames([diff.a.sessionId, diff.b.sessionId]);
  const router = useRouter();
  const [selected, setSelected] = useState(0);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = Math.max(0, Math.min(diff.rows.length - 1, selected + (e.key === "ArrowDown" ? 1 : -1)));
      setSelected(next);
      document.getElementById(`diff-row-${next}`)?.scrollIntoView({ block: "nearest" });
    } else if (e.key === "Enter" && diff.rows[selected] && (e.target as HTMLElement).tagName !== "A") {
      e.preventDefault();
      router.push(rowHref(diff, diff.rows[selected]));
    }
  };
  return (
    <div className="diff" data-testid="session-diff">
      <table className="table diff-totals">
        <thead>
          <tr>
            <th>{t("diff.sessions.totals")}</th>
            <th>
              {t("diff.a")} · <SessionName id={diff.a.sessionId} session={names.get(diff.a.sessionId)} />
            </th>
            <th>
              {t("diff.b")} · <SessionName id={diff.b.sessionId} session={names.get(diff.b.sessionId)} />
            </th>
          </tr>
        </thead>
        <tbody>
          {TOTALS.map(({ key, label, format }) => (
            <tr key={key} className={diff.a.totals[key] === diff.b.totals[key] ? "" : "diff-changed"}>
              <td>{t(label)}</td>
              <td className="num">{format(diff.a.totals[key])}</td>
              <td className="num">{format(diff.b.totals[key])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small" data-testid="session-diff-summary">
        {t("diff.sessions.summary", diff.counts)}
      </p>
      {diff.fork && diff.fork.index > 0 && (
        <p className="small muted" data-testid="session-diff-fork">
          {t("diff.sessions.fork", { cycle: diff.fork.cycleId, count: diff.fork.index })}
        </p>
      )}
      {(diff.a.truncated || diff.b.truncated) && (
        <p className="small muted">{t("diff.sessions.truncated", { limit: diff.limit })}</p>
      )}
      {diff.rows.length === 0 ? (
        <p className="muted">{t("diff.sessions.none")}</p>
      ) : (
        <div
          className="panel diff-cycles"
          role="listbox"
          tabIndex={0}
          aria-label={t("diff.sessions.list")}
          aria-activedescendant={`diff-row-${selected}`}
          onKeyDown={onKeyDown}
        >
          <div className="small muted pad">{t("diff.sessions.keys")}</div>
          {diff.rows.map((row, i) => (
            <div
              key={row.index}
              id={`diff-row-${i}`}
              role="option"
              aria-selected={i === selected}
              className={`diff-cycle-row diff-${row.beforeFork ? "before-fork" : row.status}${i === selected ? " selected" : ""}`}
              onMouseEnter={() => setSelected(i)}
              data-testid="session-diff-row"
              data-status={row.status}
              data-before-fork={row.beforeFork}
            >
              <span className="mono muted">{row.index + 1}</span>
              <Brief cycle={row.a} />
              <Brief cycle={row.b} />
              <span>
                {row.beforeFork ? (
                  <span className="badge badge-muted">{t("diff.sessions.beforeFork")}</span>
                ) : (
                  <StatusBadge status={row.status} />
                )}
              </span>
              <span className="small ellipsis">
                {row.first && <FirstDiff first={row.first} />}
                {row.changedSections.length > 1 && (
                  <span className="muted">
                    {" "}
                    · {row.changedSections.map((s) => t(`diff.section.${s}` as MessageKey)).join(", ")}
                  </span>
                )}
              </span>
              <Link href={rowHref(diff, row)} title={t("diff.sessions.open")} aria-label={t("diff.sessions.open")}>
                →
              </Link>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

function Brief({ cycle }: { cycle: CycleBrief | null }) {
  const t = useT();
  if (!cycle) return <span className="muted">{t("diff.absent")}</span>;
  return (
    <span className="small ellipsis" title={cycle.cycleId}>
      <span className="mono">{cycle.cycleId}</span>{" "}
      {t("diff.sessions.brief", {
        action: cycle.gateAction ?? "—",
        endReason: cycle.endReason ?? "—",
        sent: cycle.sent,
        tokens: cycle.totalTokens.toLocaleString(),
      })}
    </span>
  );
}

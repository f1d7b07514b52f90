"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { SessionSummary } from "../../lib/api/schemas";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/client/format";
import { useLiveSessions } from "../../lib/client/react/use-live-sessions";
import { useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import { usageSummary } from "../../lib/client/usage";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { ChangeOnly } from "../shell/ChangeOnly";
import { CreateSessionForm } from "./CreateSessionForm";
import { ImportedBadge } from "./ImportedBadge";
import { ImportSessionButton } from "./ImportSessionButton";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { PlatformBadge } from "./PlatformBadge";
import { StageBadge } from "./StageBadge";

type Filter = "all" | "running" | "wait" | "stop";

/** Typing pauses this long before the list is asked again. */
const SEARCH_DEBOUNCE_MS = 250;

export function SessionsOverview() {
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<Filter>("all");
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);
  const filtered = filter !== "all" || search !== "";
  // The server filters and pages (newest session first, a stable order: rows never swap places while
  // activity streams in); "Load more" fetches the next page.
  const sessions = useLiveSessions({
    filters: { q: search || undefined, state: filter === "all" ? undefined : filter },
  });
  const rows = sessions.data ?? [];
  const t = useT();

  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("sessions.title")}</h1>
        <span className="muted">
          {sessions.data
            ? t(filtered ? "sessions.matching" : "sessions.total", {
                count: `${sessions.data.length}${sessions.hasNextPage ? "+" : ""}`,
              })
            : ""}
        </span>
        <div className="grow" />
        <ChangeOnly>
          <CreateSessionForm />
          <ImportSessionButton />
        </ChangeOnly>
      </div>
      <div className="toolbar">
        <input
          className="input"
          type="search"
          placeholder="Filter by name or id"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Filter sessions"
        />
        <div className="seg" role="group" aria-label="Agent state">
          {(["all", "running", "wait", "stop"] as const).map((f) => (
            <button
              key={f}
              className={filter === f ? "active" : ""}
              onClick={() => setFilter(f)}
              aria-pressed={filter === f}
            >
              {t(`sessions.filter.${f}`)}
            </button>
          ))}
        </div>
      </div>
      {sessions.isPending && <Loading label="Loading sessions…" />}
      {sessions.isError && (
        <ErrorState
          title="Cannot load sessions"
          error={sessions.error}
          action={
            <button className="btn" onClick={() => void sessions.refetch()}>
              Retry
            </button>
          }
        />
      )}
      {sessions.isSuccess && rows.length === 0 && !filtered && (
        <EmptyState title="No sessions yet">
          Create one with the form above and send it a message from its page, post to{" "}
          <code>POST /api/sessions/:id/messages</code>, or connect a chat platform.
        </EmptyState>
      )}
      {sessions.isSuccess && rows.length === 0 && filtered && (
        <EmptyState title="No session matches">Clear the filter to see every session.</EmptyState>
      )}
      {rows.length > 0 && <SessionTable rows={rows} />}
      {sessions.hasNextPage && (
        <div className="toolbar">
          <button
            className="btn"
            data-testid="sessions-more"
            disabled={sessions.isFetchingNextPage}
            onClick={() => void sessions.fetchNextPage()}
          >
            {sessions.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      )}
    </div>
  );
}

function SessionTable({ rows }: { rows: SessionSummary[] }) {
  const now = useNow();
  const t = useT();
  return (
    <table className="table sessions-table">
      <thead>
        <tr>
          <th>{t("sessions.col.session")}</th>
          <th>{t("sessions.col.now")}</th>
          <th className="num">{t("sessions.col.cycles")}</th>
          <th className="num">{t("sessions.col.pending")}</th>
          <th className="num">{t("sessions.col.usage")}</th>
          <th>{t("sessions.col.lastActivity")}</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.id} data-session-id={s.id} data-last-seq={s.lastSeq}>
            <td>
              <Link href={`/sessions/${encodeURIComponent(s.id)}`} className="session-link">
                {s.name || s.id}
              </Link>{" "}
              {chatPlatformLabel(s.platform) && <PlatformBadge platform={s.platform} />}
              {s.imported && <ImportedBadge />}
              <div className="sub mono">
                {s.id} · {t(s.isGroupChat ? "session.group" : "session.private")} · {s.platform}
                {s.groupId && <span data-testid="session-group-id"> · group {s.groupId}</span>}
                {!s.groupId && s.userId && <span data-testid="session-user-id"> · user {s.userId}</span>}
              </div>
            </td>
            <td>
              <StageBadge agentState={s.agentState} stage={s.stage} detail={s.stageDetail} roundText={s.roundText} />
              {s.agentState === "wait" && s.waitDeadline !== null && (
                <div className="sub mono" data-testid="wait-countdown" title={formatDateTime(s.waitDeadline)}>
                  wait ends in {formatDuration(Math.max(0, s.waitDeadline - (now || s.lastActiveAt)))}
                </div>
              )}
            </td>
            <td className="num" data-testid="cycle-count">
              {s.cycleCount}
            </td>
            <td className="num" data-testid="pending-count">
              {s.pendingMessages || ""}
            </td>
            <td className="num mono" data-testid="session-usage">
              {s.totalTokens ? usageSummary(s) : ""}
            </td>
            <td title={formatDateTime(s.lastActiveAt)}>
              {now ? formatAgo(s.lastActiveAt, now) : formatDateTime(s.lastActiveAt)}
            </td>
            <td className="row-actions">
              <Link href={`/sessions/${encodeURIComponent(s.id)}`}>{t("sessions.live")}</Link>
              <Link href={`/sessions/${encodeURIComponent(s.id)}/replay`}>{t("sessions.replay")}</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

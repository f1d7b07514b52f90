"use client";
import Link from "next/link";
import { useMemo, useState } from "react";
import type { SessionSummary } from "../../lib/api/schemas";
import { formatAgo, formatDateTime } from "../../lib/client/format";
import { useLiveSessions } from "../../lib/client/react/use-live-sessions";
import { useNow } from "../../lib/client/react/use-now";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { CreateSessionForm } from "./CreateSessionForm";
import { StageBadge } from "./StageBadge";

type Filter = "all" | "running" | "wait" | "stop";

export function SessionsOverview() {
  const sessions = useLiveSessions();
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<Filter>("all");
  const rows = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (
      [...(sessions.data ?? [])]
        .filter((s) => filter === "all" || s.agentState === filter)
        .filter((s) => !q || s.name.toLowerCase().includes(q) || s.id.toLowerCase().includes(q))
        // Stable order (newest session first): rows never swap places while activity streams in.
        .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id))
    );
  }, [sessions.data, query, filter]);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Sessions</h1>
        <span className="muted">{sessions.data ? `${sessions.data.length} total` : ""}</span>
        <div className="grow" />
        <CreateSessionForm />
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
              {f === "stop" ? "idle" : f === "wait" ? "waiting" : f}
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
      {sessions.isSuccess && sessions.data.length === 0 && (
        <EmptyState title="No sessions yet">
          Create one with the form above and send it a message from its page, post to{" "}
          <code>POST /api/sessions/:id/messages</code>, or connect a chat platform.
        </EmptyState>
      )}
      {sessions.isSuccess && sessions.data.length > 0 && rows.length === 0 && (
        <EmptyState title="No session matches">Clear the filter to see all {sessions.data.length}.</EmptyState>
      )}
      {rows.length > 0 && <SessionTable rows={rows} />}
    </div>
  );
}

function SessionTable({ rows }: { rows: SessionSummary[] }) {
  const now = useNow();
  return (
    <table className="table sessions-table">
      <thead>
        <tr>
          <th>Session</th>
          <th>Now</th>
          <th className="num">Cycles</th>
          <th className="num">Pending</th>
          <th>Last activity</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.id} data-session-id={s.id} data-last-seq={s.lastSeq}>
            <td>
              <Link href={`/sessions/${encodeURIComponent(s.id)}`} className="session-link">
                {s.name || s.id}
              </Link>
              <div className="sub mono">
                {s.id} · {s.isGroupChat ? "group" : "private"} · {s.platform}
              </div>
            </td>
            <td>
              <StageBadge agentState={s.agentState} stage={s.stage} detail={s.stageDetail} roundText={s.roundText} />
            </td>
            <td className="num" data-testid="cycle-count">
              {s.cycleCount}
            </td>
            <td className="num">{s.pendingMessages || ""}</td>
            <td title={formatDateTime(s.lastActiveAt)}>
              {now ? formatAgo(s.lastActiveAt, now) : formatDateTime(s.lastActiveAt)}
            </td>
            <td className="row-actions">
              <Link href={`/sessions/${encodeURIComponent(s.id)}`}>Live</Link>
              <Link href={`/sessions/${encodeURIComponent(s.id)}/replay`}>Replay</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

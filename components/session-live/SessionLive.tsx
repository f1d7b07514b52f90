"use client";
// /sessions/:id: the session's timeline as it happens, a stage panel, pause-following with a count
// of new events, j/k through cycles, and the chat box.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { memo, useCallback, useEffect, useRef, useState } from "react";
import { ApiRequestError, api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useConnection } from "../../lib/client/react/use-connection";
import { useT } from "../../lib/client/react/use-locale";
import { useLiveTimeline } from "../../lib/client/react/use-live-timeline";
import { sessionTitle } from "../../lib/client/session-title";
import { usageSummary } from "../../lib/client/usage";
import type { Timeline, TimelineItem } from "../../lib/client/timeline";
import { BotSendBox } from "../chat/BotSendBox";
import { ChangeOnly } from "../shell/ChangeOnly";
import { ChatBox } from "../chat/ChatBox";
import { CycleCard } from "../cycle/CycleCard";
import { DerivedBadge } from "../sessions/DerivedBadge";
import { ImportedBadge } from "../sessions/ImportedBadge";
import { PlatformBadge } from "../sessions/PlatformBadge";
import { Badge } from "../ui/Badge";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { VirtualList, type VirtualListHandle } from "../ui/VirtualList";
import { SessionStats } from "./SessionStats";
import { SilencesPanel } from "./SilencesPanel";
import { StagePanel } from "./StagePanel";
import { MessageRow, NoticeRow } from "./TimelineRows";
import { useCycleKeys } from "./use-cycle-keys";
import { useLinkedCycle } from "./use-linked-cycle";

/** Events shown at once on open; older ones load behind them (the view opens at its end). */
const LIVE_WINDOW = 1_000;
const SUMMARY_REFETCH_MS = 1_000;

/** `call` at once, then at most once per `ms` (a call meanwhile runs when the interval ends). */
function useThrottledCall(call: () => void, ms: number): () => void {
  const latest = useRef(call);
  useEffect(() => {
    latest.current = call;
  });
  const state = useRef<{ lastAt: number; timer: ReturnType<typeof setTimeout> | null }>({
    lastAt: -Infinity,
    timer: null,
  });
  useEffect(() => {
    const s = state.current;
    return () => {
      if (s.timer) clearTimeout(s.timer);
    };
  }, []);
  return useCallback(() => {
    const s = state.current;
    if (s.timer) return;
    const wait = s.lastAt + ms - performance.now();
    const run = () => {
      s.timer = null;
      s.lastAt = performance.now();
      latest.current();
    };
    if (wait <= 0) run();
    else s.timer = setTimeout(run, wait);
  }, [ms]);
}

export function SessionLive({ sessionId }: { sessionId: string }) {
  const session = useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) });
  const queryClient = useQueryClient();
  const refetchSession = useThrottledCall(
    () => void queryClient.invalidateQueries({ queryKey: queryKeys.session(sessionId), exact: true }),
    SUMMARY_REFETCH_MS,
  );
  const { query, timeline, progress } = useLiveTimeline(sessionId, {
    live: !isNotFound(session.error),
    window: LIVE_WINDOW,
    // The header's token and cost totals come from the store: one small refetch after finished
    // cycles, at most once a second (a busy session ends several cycles a second); archive and
    // unarchive refetch it too (the badge).
    onEvents: (events) => {
      if (
        events.some(
          (e) => e.type === "cycle.end" || (e.type === "operator.action" && e.data.action.startsWith("session.")),
        )
      )
        refetchSession();
    },
  });
  const t = useT();

  if (isNotFound(session.error) || isNotFound(query.error)) {
    return (
      <div className="page">
        <EmptyState title={t("live.notFound", { id: sessionId })} action={<Link href="/">{t("live.backToAll")}</Link>}>
          {t("live.notFoundBody")}
        </EmptyState>
      </div>
    );
  }
  const name = sessionTitle(sessionId, session.data, timeline);
  // The chat's group or user id; a dashboard group chat's group is itself (its groupId is the session
  // id, shown already): not said twice.
  const chat = session.data?.groupId ?? session.data?.userId ?? null;
  const chatId = chat !== sessionId ? chat : null;
  return (
    <div className="page page-live">
      <div className="page-head">
        <h1 className="ellipsis" title={sessionId}>
          {name}
        </h1>
        {session.data && (
          <>
            <Badge tone="muted">{t(session.data.isGroupChat ? "session.group" : "session.private")}</Badge>
            <PlatformBadge platform={session.data.platform} />
            {session.data.archivedAt !== null && (
              <Badge tone="warn" testId="session-archived">
                {t("sessions.archivedBadge")}
              </Badge>
            )}
            {session.data.imported && <ImportedBadge />}
            {session.data.origin && <DerivedBadge origin={session.data.origin} />}
            {chatId && (
              <span
                className="mono muted small"
                title={t(session.data.groupId ? "live.groupIdTitle" : "live.userIdTitle")}
              >
                {session.data.groupId
                  ? t("live.groupId", { id: session.data.groupId })
                  : t("live.userId", { id: session.data.userId ?? "" })}
              </span>
            )}
            <span className="mono small" data-testid="session-usage" title={t("live.usageTitle")}>
              {usageSummary(session.data)}
            </span>
          </>
        )}
        {name !== sessionId && <span className="mono muted small">{sessionId}</span>}
        <span className="grow" />
        <Link className="btn btn-sm" href={`/sessions/${encodeURIComponent(sessionId)}/replay`}>
          {t("live.replay")}
        </Link>
        <Link className="btn btn-sm" href={`/sessions/${encodeURIComponent(sessionId)}/analytics`}>
          {t("live.analytics")}
        </Link>
        <Link className="btn btn-sm" href={`/tools?session=${encodeURIComponent(sessionId)}`}>
          {t("live.toolsForSession")}
        </Link>
        <a className="btn btn-sm" href={api.exportUrl(sessionId)} download title={t("transfer.exportTitle")}>
          {t("transfer.export")}
        </a>
      </div>
      {query.isError && (
        <ErrorState
          title={t("live.loadError")}
          error={query.error}
          action={
            <button className="btn" onClick={() => void query.refetch()}>
              {t("live.retry")}
            </button>
          }
        />
      )}
      {query.isPending && (
        <Loading
          label={
            progress ? t("live.loadingEvents", { loaded: progress.loaded, total: progress.total }) : t("live.loading")
          }
        />
      )}
      {timeline && (
        <LiveBody
          sessionId={sessionId}
          timeline={timeline}
          platform={session.data?.platform}
          isGroupChat={session.data?.isGroupChat}
          waitDeadline={session.data?.waitDeadline ?? null}
          readOnly={(session.data?.imported ?? false) || session.data?.origin !== undefined}
        />
      )}
    </div>
  );
}

// Memoised: the header's summary refetches must not redraw the timeline.
const LiveBody = memo(function LiveBody({
  sessionId,
  timeline,
  platform,
  isGroupChat,
  waitDeadline,
  readOnly,
}: {
  sessionId: string;
  timeline: Timeline;
  platform: string | undefined;
  isGroupChat: boolean | undefined;
  /** The session's wait deadline as loaded, for a wait decided before the loaded events. */
  waitDeadline: number | null;
  /** An imported or derived (re-run, fork) session: nothing can be sent into it. */
  readOnly: boolean;
}) {
  const [follow, setFollow] = useState(true);
  const [pausedAtSeq, setPausedAtSeq] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const list = useRef<VirtualListHandle>(null);
  const connection = useConnection();
  const t = useT();

  const latest = useRef({ follow, lastSeq: timeline.lastSeq });
  latest.current = { follow, lastSeq: timeline.lastSeq };
  const changeFollow = useCallback((next: boolean) => {
    if (next === latest.current.follow) return;
    setFollow(next);
    // New events are counted from the moment following stopped.
    if (!next) setPausedAtSeq(latest.current.lastSeq);
  }, []);
  const resume = () => {
    setFollow(true);
    list.current?.scrollToEnd();
  };

  // Opening "what the model saw" means reading: following stops, so the card stays where it is
  // instead of being pushed up by its own panel and by new events.
  const toggleExpanded = useCallback(
    (key: string) => {
      setExpanded((prev) => {
        const next = new Set(prev);
        if (next.has(key)) next.delete(key);
        else next.add(key);
        return next;
      });
      changeFollow(false);
    },
    [changeFollow],
  );

  useCycleKeys({
    items: timeline.items,
    selected,
    onSelect: (key, index) => {
      setSelected(key);
      if (follow) changeFollow(false);
      list.current?.scrollToIndex(index);
    },
    onToggle: toggleExpanded,
    onEnd: resume,
  });

  useLinkedCycle(timeline.items, (key, index) => {
    setSelected(key);
    changeFollow(false);
    list.current?.scrollToIndex(index);
  });

  const newEvents = follow ? 0 : Math.max(0, timeline.lastSeq - pausedAtSeq);
  const render = useCallback(
    (item: TimelineItem) => {
      if (item.kind === "cycle") {
        return (
          <CycleCard
            cycle={item.cycle}
            selected={item.key === selected}
            expanded={expanded.has(item.key)}
            onToggleExpanded={toggleExpanded}
            onSelect={setSelected}
          />
        );
      }
      if (item.kind === "message")
        return <MessageRow event={item.event} recalled={item.recalled} waits={item.waits} live />;
      return <NoticeRow event={item.event} />;
    },
    [selected, expanded, toggleExpanded],
  );

  return (
    <div className="live-grid">
      <div className="live-main">
        <div className="follow-bar" aria-live="polite">
          {follow ? (
            <>
              {connection.socket === "live" ? (
                <>
                  <span className="live-dot" aria-hidden="true" /> {t("live.following")}
                </>
              ) : (
                <>
                  <span className="live-dot live-dot-off" aria-hidden="true" />{" "}
                  {t(connection.socket === "connecting" ? "live.connecting" : "live.reconnecting")}
                </>
              )}
              <button className="btn btn-sm" onClick={() => changeFollow(false)} title={t("live.pauseTitle")}>
                {t("live.pause")}
              </button>
            </>
          ) : (
            <>
              <span className="muted">{t("live.paused")}</span>
              <button
                className="btn btn-sm btn-primary"
                onClick={resume}
                data-testid="resume-follow"
                title={t("live.resumeTitle")}
              >
                {newEvents > 0 ? t("live.newEvents", { count: newEvents }) : t("live.resume")}
              </button>
            </>
          )}
          <span className="grow" />
          {timeline.gaps.length > 0 && (
            <span className="muted small" data-testid="history-loading">
              <span className="spinner" aria-hidden="true" /> {t("live.loadingEarlier")}
            </span>
          )}
          <span className="muted small">
            <kbd>j</kbd>/<kbd>k</kbd> {t("live.keys.cycles")} · <kbd>o</kbd> {t("live.keys.modelInput")} · <kbd>G</kbd>{" "}
            {t("live.keys.follow")}
          </span>
        </div>
        <div
          className="timeline-wrap"
          data-testid="timeline"
          data-last-seq={timeline.lastSeq}
          data-event-count={timeline.events.length}
          data-message-count={timeline.messageCount}
          data-cycle-count={timeline.cycleCount}
        >
          <VirtualList
            items={timeline.items}
            getKey={(i) => i.key}
            estimateSize={estimateItem}
            render={render}
            follow={follow}
            onFollowChange={changeFollow}
            handle={list}
            label={t("live.timeline")}
            className="timeline"
            empty={<EmptyState title={t("live.emptyTitle")}>{t("live.emptyBody")}</EmptyState>}
          />
        </div>
        {!readOnly && <Composers sessionId={sessionId} isGroupChat={isGroupChat} platform={platform} />}
      </div>
      <aside className="live-side">
        <StagePanel timeline={timeline} live waitDeadline={waitDeadline} />
        <SessionStats sessionId={sessionId} timeline={timeline} />
        <SilencesPanel timeline={timeline} live />
      </aside>
    </div>
  );
});

/** The chat boxes: memoised, so the streamed timeline does not redraw them with every merge. */
const Composers = memo(function Composers({
  sessionId,
  isGroupChat,
  platform,
}: {
  sessionId: string;
  isGroupChat: boolean | undefined;
  platform: string | undefined;
}) {
  return (
    <ChangeOnly>
      <ChatBox sessionId={sessionId} isGroupChat={isGroupChat} />
      <BotSendBox sessionId={sessionId} platform={platform} />
    </ChangeOnly>
  );
});

function estimateItem(item: TimelineItem): number {
  if (item.kind === "message") return item.event.type !== "message.sent" && item.event.data.images?.length ? 200 : 30;
  return item.kind === "cycle" ? 190 : 26;
}

function isNotFound(error: unknown): boolean {
  return error instanceof ApiRequestError && error.status === 404;
}

"use client";
// /sessions/:id/replay: a persisted session played back. Transport (play/pause, step by event or
// cycle, speed 0.25x-16x, skip silences), a scrubber with cycle markers, and the chat transcript
// and cycle cards as they stood at the playhead. Lists are virtualised: 10,000+ events open as is.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { MonitorEvent } from "../../lib/events/schemas";
import { api } from "../../lib/client/api";
import { formatClock, formatPlayhead } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useCanChange } from "../../lib/client/react/use-account";
import { useT } from "../../lib/client/react/use-locale";
import { useLiveTimeline } from "../../lib/client/react/use-live-timeline";
import { useReplay } from "../../lib/client/react/use-replay";
import { REPLAY_SPEEDS, type ReplayPlayer } from "../../lib/client/replay-player";
import { replayMarksOf } from "../../lib/client/replay-marks";
import { createScrubScale } from "../../lib/client/replay-scale";
import { sessionTitle } from "../../lib/client/session-title";
import type { CycleView, Timeline, TimelineItem, TimelineView } from "../../lib/client/timeline";
import { CycleCard } from "../cycle/CycleCard";
import { ReplayDiffPicker } from "../diff/ReplayDiffPicker";
import { StageBadge } from "../sessions/StageBadge";
import { MessageRow, NoticeRow } from "../session-live/TimelineRows";
import { Icon } from "../ui/Icons";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { VirtualList } from "../ui/VirtualList";
import { BranchesPanel } from "./Branches";
import { OriginBanner } from "./OriginBanner";
import { RerunDialog } from "./RerunDialog";
import { Scrubber } from "./Scrubber";

/** Events loaded before the player shows (it starts at the beginning); the rest stream in behind. */
const REPLAY_HEAD = 500;

/** `cycle`: a cycle id to open the replay at (the ?cycle= deep link of analytics and search). */
export function SessionReplay({ sessionId, cycle }: { sessionId: string; cycle?: string }) {
  // The recording is the ledger; it keeps growing while the session runs (live: true).
  const { query, timeline, progress } = useLiveTimeline(sessionId, { head: REPLAY_HEAD });
  const session = useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) });
  const t = useT();
  const canChange = useCanChange();
  // null: closed; { cycleId: null }: a re-run of the whole session; a cycle: a fork from it.
  const [rerun, setRerun] = useState<{ cycleId: string | null } | null>(null);
  const onFork = useCallback((cycle: CycleView) => setRerun({ cycleId: cycle.cycleId }), []);
  const canRerun = canChange && timeline !== undefined && timeline.events.length > 0;
  return (
    <div className="page page-replay">
      <div className="page-head">
        <ReplayHeading sessionId={sessionId} name={sessionTitle(sessionId, session.data, timeline)} />
        <span className="grow" />
        {canRerun && (
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => setRerun({ cycleId: null })}
            title={t("rerun.rerunTitle")}
            data-testid="rerun-open"
          >
            {t("rerun.rerun")}
          </button>
        )}
        <Link className="btn btn-sm" href={`/sessions/${encodeURIComponent(sessionId)}`}>
          {t("replay.live")}
        </Link>
      </div>
      {session.data?.origin && (
        <OriginBanner sessionId={sessionId} origin={session.data.origin} timeline={timeline ?? null} />
      )}
      <BranchesPanel sessionId={sessionId} timeline={timeline ?? null} />
      {rerun && timeline && (
        <RerunDialog
          sessionId={sessionId}
          // The whole recording's cycle, not the playhead's partial view of it.
          cycle={rerun.cycleId === null ? null : cycleOf(timeline, rerun.cycleId)}
          timeline={timeline}
          onClose={() => setRerun(null)}
        />
      )}
      {query.isError && (
        <ErrorState
          title={t("replay.loadError")}
          error={query.error}
          action={<Link href="/">{t("replay.backToSessions")}</Link>}
        />
      )}
      {query.isPending && (
        <Loading
          label={
            progress
              ? t("replay.loadingEvents", { loaded: progress.loaded, total: progress.total })
              : t("replay.loading")
          }
        />
      )}
      {timeline && timeline.events.length === 0 && (
        <EmptyState
          title={t("replay.emptyTitle")}
          action={<Link href={`/sessions/${encodeURIComponent(sessionId)}`}>{t("replay.openLive")}</Link>}
        >
          {t("replay.emptyBody")}
        </EmptyState>
      )}
      {timeline && timeline.gaps.length > 0 && (
        <Loading label={t("replay.loadingEarlier", { loaded: timeline.events.length, total: timeline.lastSeq })} />
      )}
      {timeline && timeline.events.length > 0 && timeline.gaps.length === 0 && (
        <ReplayBody
          sessionId={sessionId}
          events={timeline.events}
          cycle={cycle}
          onFork={canRerun ? onFork : undefined}
        />
      )}
    </div>
  );
}

function cycleOf(timeline: Timeline, cycleId: string): CycleView | null {
  const key = timeline.cycleKeyById.get(cycleId);
  const index = key === undefined ? undefined : timeline.cycleIndex.get(key);
  const item = index === undefined ? undefined : timeline.items[index];
  return item?.kind === "cycle" ? item.cycle : null;
}

/** The session's name first; the id beside it, secondary. */
export function ReplayHeading({ sessionId, name }: { sessionId: string; name: string }) {
  const t = useT();
  return (
    <>
      <h1 className="ellipsis" title={sessionId} data-testid="replay-title">
        {t("replay.title", { name })}
      </h1>
      {name !== sessionId && <span className="mono muted small">{sessionId}</span>}
    </>
  );
}

export function ReplayBody({
  sessionId,
  events,
  cycle,
  onFork,
}: {
  sessionId: string;
  events: readonly MonitorEvent[];
  cycle?: string;
  /** Absent for viewers: no fork control on the cycles. */
  onFork?: (cycle: CycleView) => void;
}) {
  const t = useT();
  const [dragging, setDragging] = useState(false);
  const { player, snapshot, visible } = useReplay(sessionId, events, { dragging });
  const hit = useOpeningPosition(player, events, cycle);
  useReplayKeys(player);

  const { marks, scale } = useMemo(() => {
    const { marks, weights } = replayMarksOf(events);
    return {
      marks,
      scale: createScrubScale(
        events.map((e) => e.ts),
        weights,
      ),
    };
  }, [events]);
  const lastEvent = snapshot.index > 0 ? events[snapshot.index - 1] : null;
  const currentCycle = useMemo(() => {
    const item = visible.items.findLast((i) => i.kind === "cycle");
    return item?.kind === "cycle" ? item.cycle.cycleId : null;
  }, [visible.items]);

  return (
    <div
      className="replay"
      data-testid="replay"
      data-index={snapshot.index}
      data-total={snapshot.total}
      data-playing={snapshot.playing}
    >
      <div className="transport">
        <button
          className="btn btn-icon"
          onClick={() => player.stepCycle(-1)}
          title={`${t("replay.prevCycle")} (Shift+←)`}
          aria-label={t("replay.prevCycle")}
        >
          <Icon name="cycleBack" />
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepEvent(-1)}
          title={`${t("replay.prevEvent")} (←)`}
          aria-label={t("replay.prevEvent")}
        >
          <Icon name="stepBack" />
        </button>
        <button
          className="btn btn-primary btn-play"
          onClick={player.toggle}
          title={`${t("replay.playPause")} (Space)`}
          aria-label={t(snapshot.playing ? "replay.pause" : "replay.play")}
          data-testid="play"
        >
          <Icon name={snapshot.playing ? "pause" : "play"} /> {t(snapshot.playing ? "replay.pause" : "replay.play")}
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepEvent(1)}
          title={`${t("replay.nextEvent")} (→)`}
          aria-label={t("replay.nextEvent")}
        >
          <Icon name="stepForward" />
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepCycle(1)}
          title={`${t("replay.nextCycle")} (Shift+→)`}
          aria-label={t("replay.nextCycle")}
        >
          <Icon name="cycleForward" />
        </button>
        <div className="seg speeds" role="group" aria-label={t("replay.speed")}>
          {REPLAY_SPEEDS.map((s) => (
            <button
              key={s}
              className={snapshot.speed === s ? "active" : ""}
              aria-pressed={snapshot.speed === s}
              onClick={() => player.setSpeed(s)}
            >
              {s}×
            </button>
          ))}
        </div>
        <label className="check" title={t("replay.skipIdleTitle")}>
          <input type="checkbox" checked={snapshot.skipIdle} onChange={(e) => player.setSkipIdle(e.target.checked)} />{" "}
          {t("replay.skipIdle")}
        </label>
        <span className="grow" />
        <PlayheadClock player={player} durationMs={snapshot.durationMs} />
        <span className="mono muted" data-testid="event-counter">
          {t("replay.eventCounter", { index: snapshot.index, total: snapshot.total })}
        </span>
      </div>
      <Scrubber
        player={player}
        durationMs={snapshot.durationMs}
        marks={marks}
        scale={scale}
        onDragChange={setDragging}
      />
      <div className="replay-now">
        {visible.stage ? (
          <StageBadge
            agentState={visible.stage.data.agentState}
            stage={visible.stage.data.stage}
            detail={visible.stage.data.detail}
            roundText={visible.stage.data.roundText}
          />
        ) : (
          <span className="muted">{t("replay.beforeFirstStage")}</span>
        )}
        {lastEvent && (
          <span className="muted small mono">
            {formatClock(lastEvent.ts)} · #{lastEvent.seq} {lastEvent.type}
          </span>
        )}
        <ReplayDiffPicker sessionId={sessionId} events={events} currentCycleId={currentCycle} />
        <span className="grow" />
        <span className="muted small">
          <kbd>Space</kbd> {t("replay.keys.play")} · <kbd>←</kbd>/<kbd>→</kbd> {t("replay.keys.event")} ·{" "}
          <kbd>Shift</kbd>
          {t("replay.keys.arrowsOr")} <kbd>j</kbd>/<kbd>k</kbd> {t("replay.keys.cycle")} · <kbd>[</kbd>/<kbd>]</kbd>{" "}
          {t("replay.keys.speed")}
        </span>
      </div>
      <ReplayLists visible={visible} onFork={onFork} hit={hit} />
    </div>
  );
}

/**
 * The transcript and the cycle cards at the lists' index. Memoised: the player's state changes with
 * every scrubber move (the counter, the stage line), and redrawing the lists' rows each time would
 * cost more than the frame; they change only when `visible` does.
 */
const ReplayLists = memo(function ReplayLists({
  visible,
  onFork,
  hit,
}: {
  visible: TimelineView;
  onFork?: (cycle: CycleView) => void;
  /** The event a link opened the replay at (a search hit): its row or its cycle's card is marked. */
  hit: LinkedHit | null;
}) {
  const t = useT();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [followChat, setFollowChat] = useState(true);
  const [followCycles, setFollowCycles] = useState(true);
  const transcript = useMemo(() => visible.items.filter((i) => i.kind !== "cycle"), [visible.items]);
  const cycles = useMemo(
    () => visible.items.filter((i): i is Extract<TimelineItem, { kind: "cycle" }> => i.kind === "cycle"),
    [visible.items],
  );
  const current = cycles.length ? cycles[cycles.length - 1].key : null;

  const toggle = useCallback((key: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);
  const renderCycle = useCallback(
    (item: { key: string; cycle: CycleView }) => (
      <HitMark on={!!hit?.cycleId && item.cycle.cycleId === hit.cycleId}>
        <CycleCard
          cycle={item.cycle}
          selected={item.key === current}
          expanded={expanded.has(item.key)}
          onToggleExpanded={toggle}
          onFork={onFork}
        />
      </HitMark>
    ),
    [current, expanded, toggle, onFork, hit],
  );
  const renderChat = useCallback(
    (item: TimelineItem) =>
      item.kind === "message" ? (
        <HitMark on={!!hit?.messageId && messageIdOf(item.event) === hit.messageId}>
          <MessageRow event={item.event} recalled={item.recalled} waits={item.waits} />
        </HitMark>
      ) : item.kind === "notice" ? (
        <HitMark on={item.event.seq === hit?.seq}>
          <NoticeRow event={item.event} />
        </HitMark>
      ) : null,
    [hit],
  );

  // Rows re-mount on every scrub frame: small overscans keep each frame cheap.
  return (
    <div className="replay-cols">
      <ReplayColumn
        label={t("replay.transcriptLabel")}
        title={t("replay.transcript")}
        count={t("replay.messages", { count: visible.messageCount })}
        items={transcript}
        estimateSize={30}
        render={renderChat}
        follow={followChat}
        onFollowChange={setFollowChat}
        testId="replay-transcript"
        overscan={2}
        empty={t("replay.noMessage")}
      />
      <ReplayColumn
        wide
        label={t("replay.cyclesLabel")}
        title={t("replay.cycles")}
        count={visible.cycleCount.toLocaleString()}
        items={cycles}
        estimateSize={190}
        render={renderCycle}
        follow={followCycles}
        onFollowChange={setFollowCycles}
        testId="replay-cycles"
        overscan={1}
        empty={t("replay.noCycle")}
      />
    </div>
  );
});

/** One column of the replay: a titled, virtualised list that follows the playhead until scrolled away. */
function ReplayColumn<T extends { key: string }>(props: {
  label: string;
  title: string;
  count: string;
  items: readonly T[];
  estimateSize: number;
  render: (item: T) => ReactNode;
  follow: boolean;
  onFollowChange: (follow: boolean) => void;
  testId: string;
  overscan: number;
  empty: string;
  wide?: boolean;
}) {
  return (
    <section className={props.wide ? "replay-col replay-col-wide" : "replay-col"} aria-label={props.label}>
      <div className="col-title">
        {props.title} <span className="muted">{props.count}</span>
      </div>
      <VirtualList
        items={props.items}
        getKey={(i) => i.key}
        estimateSize={() => props.estimateSize}
        render={props.render}
        follow={props.follow}
        onFollowChange={props.onFollowChange}
        label={props.title}
        testId={props.testId}
        overscan={props.overscan}
        empty={<div className="muted pad">{props.empty}</div>}
      />
    </section>
  );
}

function PlayheadClock({ player, durationMs }: { player: ReplayPlayer; durationMs: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const paint = (p: number) => {
      if (ref.current) ref.current.textContent = `${formatPlayhead(p)} / ${formatPlayhead(durationMs)}`;
    };
    paint(player.getPosition());
    return player.subscribePosition(paint);
  }, [player, durationMs]);
  return <span ref={ref} className="mono playhead-clock" data-testid="playhead-clock" />;
}

function useReplayKeys(player: ReplayPlayer): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (
        e.defaultPrevented ||
        e.metaKey ||
        e.ctrlKey ||
        e.altKey ||
        (el && ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) ||
        // A dialog over the replay (re-run, fork) keeps its keys.
        el?.closest("dialog")
      )
        return;
      const actions: Record<string, () => void> = {
        " ": player.toggle,
        ArrowRight: () => (e.shiftKey ? player.stepCycle(1) : player.stepEvent(1)),
        ArrowLeft: () => (e.shiftKey ? player.stepCycle(-1) : player.stepEvent(-1)),
        j: () => player.stepCycle(1),
        k: () => player.stepCycle(-1),
        "]": () => player.nudgeSpeed(1),
        "[": () => player.nudgeSpeed(-1),
      };
      const action = actions[e.key];
      // A focused button answers Space itself.
      if (!action || (e.key === " " && el?.tagName === "BUTTON")) return;
      e.preventDefault();
      action();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [player]);
}

/** The event a link named (`?seq=`): its message or its cycle, to mark where they are shown. */
interface LinkedHit {
  seq: number;
  messageId: string | null;
  cycleId: string | null;
}

function linkedHitOf(event: MonitorEvent): LinkedHit {
  const data = event.data as { cycleId?: unknown; messageId?: unknown };
  const isMessage =
    event.type === "message.ingested" || event.type === "message.sent" || event.type === "message.pending";
  return {
    seq: event.seq,
    messageId: isMessage && typeof data.messageId === "string" ? data.messageId : null,
    cycleId: typeof data.cycleId === "string" ? data.cycleId : null,
  };
}

const messageIdOf = (event: MonitorEvent): string | null =>
  "messageId" in event.data && typeof event.data.messageId === "string" ? event.data.messageId : null;

function HitMark({ on, children }: { on: boolean; children: ReactNode }) {
  return on ? (
    <div className="replay-hit" data-testid="replay-hit">
      {children}
    </div>
  ) : (
    children
  );
}

/**
 * Where the replay opens, once its recording is loaded: `?cycle=` (analytics, a divergence) just after
 * that cycle's end, so its card is the current one; `?seq=N` (a search hit) just after event N, which
 * is marked; otherwise just after the first cycle ended, so the first messages and the first card are
 * on screen rather than two empty panes (Play from the end starts over).
 */
function useOpeningPosition(
  player: ReplayPlayer,
  events: readonly MonitorEvent[],
  cycle: string | undefined,
): LinkedHit | null {
  const [hit, setHit] = useState<LinkedHit | null>(null);
  const done = useRef(false);
  useEffect(() => {
    if (done.current) return;
    if (cycle) {
      const end = events.findIndex((e) => e.type === "cycle.end" && e.data.cycleId === cycle);
      const at = end < 0 ? events.findIndex((e) => e.type === "cycle.start" && e.data.cycleId === cycle) : end;
      // The cycle may not be loaded yet: a later render of a growing recording finds it.
      if (at < 0) return;
      done.current = true;
      player.seekIndex(at + 1);
      return;
    }
    done.current = true;
    const seq = Number(new URLSearchParams(window.location.search).get("seq"));
    if (Number.isInteger(seq) && seq > 0) {
      const index = events.findIndex((e) => e.seq >= seq);
      player.seekIndex(index < 0 ? events.length : index + 1);
      if (index >= 0 && events[index].seq === seq) setHit(linkedHitOf(events[index]));
      return;
    }
    const firstEnd = events.findIndex((e) => e.type === "cycle.end");
    player.seekIndex(firstEnd < 0 ? events.length : firstEnd + 1);
  }, [player, events, cycle]);
  return hit;
}

"use client";
// /sessions/:id/replay: a persisted session played back. Transport (play/pause, step by event or
// cycle, speed 0.25x-16x, skip silences), a scrubber with cycle markers, and the chat transcript
// and cycle cards as they stood at the playhead. Lists are virtualised: 10,000+ events open as is.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { MonitorEvent } from "../../lib/events/schemas";
import { api } from "../../lib/client/api";
import { formatClock, formatPlayhead } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { useLiveTimeline } from "../../lib/client/react/use-live-timeline";
import { useReplay } from "../../lib/client/react/use-replay";
import { REPLAY_SPEEDS, type ReplayPlayer } from "../../lib/client/replay-player";
import { createScrubScale } from "../../lib/client/replay-scale";
import { sessionTitle } from "../../lib/client/session-title";
import type { CycleView, Timeline, TimelineItem } from "../../lib/client/timeline";
import { CycleCard } from "../cycle/CycleCard";
import { StageBadge } from "../sessions/StageBadge";
import { MessageRow, NoticeRow } from "../session-live/TimelineRows";
import { Icon } from "../ui/Icons";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { VirtualList } from "../ui/VirtualList";
import { Scrubber, type ScrubberMarks } from "./Scrubber";

/** Events loaded before the player shows (it starts at the beginning); the rest stream in behind. */
const REPLAY_HEAD = 500;

/** `cycle`: a cycle id to open the replay at (the ?cycle= deep link of analytics and search). */
export function SessionReplay({ sessionId, cycle }: { sessionId: string; cycle?: string }) {
  // The recording is the ledger; it keeps growing while the session runs (live: true).
  const { query, timeline, progress } = useLiveTimeline(sessionId, { head: REPLAY_HEAD });
  const session = useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) });
  const t = useT();
  return (
    <div className="page page-replay">
      <div className="page-head">
        <ReplayHeading sessionId={sessionId} name={sessionTitle(sessionId, session.data, timeline)} />
        <span className="grow" />
        <Link className="btn btn-sm" href={`/sessions/${encodeURIComponent(sessionId)}`}>
          {t("replay.live")}
        </Link>
      </div>
      {query.isError && (
        <ErrorState
          title="Cannot load this session's recording"
          error={query.error}
          action={<Link href="/">Back to sessions</Link>}
        />
      )}
      {query.isPending && (
        <Loading
          label={
            progress
              ? `Loading events ${progress.loaded.toLocaleString()} of ${progress.total.toLocaleString()}…`
              : "Loading the recording…"
          }
        />
      )}
      {timeline && timeline.events.length === 0 && (
        <EmptyState
          title="Nothing recorded yet"
          action={<Link href={`/sessions/${encodeURIComponent(sessionId)}`}>Open the live view</Link>}
        >
          This session has no events. Send it a message from the live view, then come back to replay it.
        </EmptyState>
      )}
      {timeline && timeline.gaps.length > 0 && (
        <Loading
          label={`Loading earlier events… ${timeline.events.length.toLocaleString()} of ${timeline.lastSeq.toLocaleString()}`}
        />
      )}
      {timeline && timeline.events.length > 0 && timeline.gaps.length === 0 && (
        <ReplayBody sessionId={sessionId} events={timeline.events} cycle={cycle} />
      )}
    </div>
  );
}

/**
 * `?seq=N` (a search hit's link): the playhead starts just after event N, so it and its cycle so far
 * are on screen. Read once from the address, when the recording is loaded.
 */
function useSeekToLinkedSeq(player: ReplayPlayer, events: readonly MonitorEvent[]) {
  const done = useRef(false);
  useEffect(() => {
    if (done.current) return;
    done.current = true;
    const seq = Number(new URLSearchParams(window.location.search).get("seq"));
    if (!Number.isInteger(seq) || seq <= 0) return;
    const index = events.findIndex((e) => e.seq >= seq);
    player.seekIndex(index < 0 ? events.length : index + 1);
  }, [player, events]);
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

function ReplayBody({
  sessionId,
  events,
  cycle,
}: {
  sessionId: string;
  events: readonly MonitorEvent[];
  cycle?: string;
}) {
  const [dragging, setDragging] = useState(false);
  const { player, snapshot, visible } = useReplay(sessionId, events, { dragging });
  useSeekToCycle(player, events, cycle);
  useReplayKeys(player);
  useSeekToLinkedSeq(player, events);

  const marks = useMemo(() => marksOf(events), [events]);
  const scale = useMemo(() => createScrubScale(events.map((e) => e.ts)), [events]);
  const lastEvent = snapshot.index > 0 ? events[snapshot.index - 1] : null;

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
          title="Previous cycle (Shift+←)"
          aria-label="Previous cycle"
        >
          <Icon name="cycleBack" />
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepEvent(-1)}
          title="Previous event (←)"
          aria-label="Previous event"
        >
          <Icon name="stepBack" />
        </button>
        <button
          className="btn btn-primary btn-play"
          onClick={player.toggle}
          title="Play / pause (Space)"
          aria-label={snapshot.playing ? "Pause" : "Play"}
          data-testid="play"
        >
          <Icon name={snapshot.playing ? "pause" : "play"} /> {snapshot.playing ? "Pause" : "Play"}
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepEvent(1)}
          title="Next event (→)"
          aria-label="Next event"
        >
          <Icon name="stepForward" />
        </button>
        <button
          className="btn btn-icon"
          onClick={() => player.stepCycle(1)}
          title="Next cycle (Shift+→)"
          aria-label="Next cycle"
        >
          <Icon name="cycleForward" />
        </button>
        <div className="seg speeds" role="group" aria-label="Speed">
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
        <label className="check" title="Shorten silences longer than 1.5 s of playback">
          <input type="checkbox" checked={snapshot.skipIdle} onChange={(e) => player.setSkipIdle(e.target.checked)} />{" "}
          skip silences
        </label>
        <span className="grow" />
        <PlayheadClock player={player} durationMs={snapshot.durationMs} />
        <span className="mono muted" data-testid="event-counter">
          event {snapshot.index.toLocaleString()} / {snapshot.total.toLocaleString()}
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
          <span className="muted">Before the first stage.</span>
        )}
        {lastEvent && (
          <span className="muted small mono">
            {formatClock(lastEvent.ts)} · #{lastEvent.seq} {lastEvent.type}
          </span>
        )}
        <span className="grow" />
        <span className="muted small">
          <kbd>Space</kbd> play · <kbd>←</kbd>/<kbd>→</kbd> event · <kbd>Shift</kbd>+arrows or <kbd>j</kbd>/<kbd>k</kbd>{" "}
          cycle · <kbd>[</kbd>/<kbd>]</kbd> speed
        </span>
      </div>
      <ReplayLists visible={visible} />
    </div>
  );
}

/**
 * The transcript and the cycle cards at the lists' index. Memoised: the player's state changes with
 * every scrubber move (the counter, the stage line), and redrawing the lists' rows each time would
 * cost more than the frame; they change only when `visible` does.
 */
const ReplayLists = memo(function ReplayLists({ visible }: { visible: Timeline }) {
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
      <CycleCard
        cycle={item.cycle}
        selected={item.key === current}
        expanded={expanded.has(item.key)}
        onToggleExpanded={toggle}
      />
    ),
    [current, expanded, toggle],
  );
  const renderChat = useCallback(
    (item: TimelineItem) =>
      item.kind === "message" ? (
        <MessageRow event={item.event} recalled={item.recalled} arrival={item.arrival} />
      ) : item.kind === "notice" ? (
        <NoticeRow event={item.event} />
      ) : null,
    [],
  );

  // Rows re-mount on every scrub frame: small overscans keep each frame cheap.
  return (
    <div className="replay-cols">
      <section className="replay-col" aria-label="Chat transcript at the playhead">
        <div className="col-title">
          Transcript <span className="muted">{t("replay.messages", { count: visible.messageCount })}</span>
        </div>
        <VirtualList
          items={transcript}
          getKey={(i) => i.key}
          estimateSize={() => 30}
          render={renderChat}
          follow={followChat}
          onFollowChange={setFollowChat}
          label="Transcript"
          testId="replay-transcript"
          overscan={2}
          empty={<div className="muted pad">No message yet at this point. Press play or step forward.</div>}
        />
      </section>
      <section className="replay-col replay-col-wide" aria-label="Cycles at the playhead">
        <div className="col-title">
          Cycles <span className="muted">{visible.cycleCount.toLocaleString()}</span>
        </div>
        <VirtualList
          items={cycles}
          getKey={(i) => i.key}
          estimateSize={() => 190}
          render={renderCycle}
          follow={followCycles}
          onFollowChange={setFollowCycles}
          label="Cycles"
          testId="replay-cycles"
          overscan={1}
          empty={<div className="muted pad">No cycle yet at this point.</div>}
        />
      </section>
    </div>
  );
});

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

/** Once: the playhead just after the cycle's end (or its last event so far), so its card is the current one. */
function useSeekToCycle(player: ReplayPlayer, events: readonly MonitorEvent[], cycle: string | undefined): void {
  const done = useRef(false);
  useEffect(() => {
    if (!cycle || done.current) return;
    const end = events.findIndex((e) => e.type === "cycle.end" && e.data.cycleId === cycle);
    const start = end < 0 ? events.findIndex((e) => e.type === "cycle.start" && e.data.cycleId === cycle) : end;
    if (start < 0) return;
    done.current = true;
    player.seekIndex(start + 1);
  }, [player, events, cycle]);
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
        (el && ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName))
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

function marksOf(events: readonly MonitorEvent[]): ScrubberMarks {
  const marks: ScrubberMarks = { acted: [], silent: [], messages: [] };
  const startAt = new Map<string, number>();
  const announced = new Set<string>();
  for (const [i, e] of events.entries()) {
    if (e.type === "cycle.start") startAt.set(e.data.cycleId, i);
    else if (e.type === "cycle.end") {
      const at = startAt.get(e.data.cycleId) ?? i;
      (e.data.endReason === "timing_no_action" || e.data.endReason === "timing_wait" ? marks.silent : marks.acted).push(
        at,
      );
    } else if (e.type === "message.pending") {
      // A message is marked when it arrived, not again when a turn took it.
      announced.add(e.data.messageId);
      marks.messages.push(i);
    } else if ((e.type === "message.ingested" && !announced.has(e.data.messageId)) || e.type === "message.sent")
      marks.messages.push(i);
  }
  return marks;
}

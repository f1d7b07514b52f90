"use client";
// The scrubber: cycle markers (acted / stayed silent) and message ticks drawn as SVG paths however
// long the session, a playhead moved by the player's position stream without re-rendering, click or
// drag to seek, arrow keys to step. It is scaled by event (replay-scale.ts), not by wall time.
import { memo, useEffect, useMemo, useRef, type KeyboardEvent, type PointerEvent } from "react";
import { formatPlayhead } from "../../lib/client/format";
import type { ReplayPlayer } from "../../lib/client/replay-player";
import type { ScrubScale } from "../../lib/client/replay-scale";
import { useT } from "../../lib/client/react/use-locale";
import type { ScrubberMarks } from "../../lib/client/replay-marks";

const W = 1000;

/**
 * One tick per unit of the bar's 1,000 at most: a 100,000-event session has tens of thousands of
 * marks, and a path of that many pieces took Chromium a fifth of a second to lay out on every seek.
 */
function ticks(indices: number[], scale: ScrubScale, y0: number, y1: number): string {
  const xs = new Set(indices.map((i) => Math.round(scale.fractionOfEvent(i) * W)));
  return [...xs].map((x) => `M${x} ${y0}V${y1}`).join("");
}

// Memoised: the replay re-renders with every seek, the scrubber paints its playhead itself.
export const Scrubber = memo(function Scrubber({
  player,
  durationMs,
  marks,
  scale,
  onDragChange,
}: {
  player: ReplayPlayer;
  durationMs: number;
  marks: ScrubberMarks;
  scale: ScrubScale;
  /** A drag started (true) or ended (false). */
  onDragChange?: (dragging: boolean) => void;
}) {
  const t = useT();
  const trackRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLDivElement>(null);
  const fillRef = useRef<HTMLDivElement>(null);
  const dragging = useRef<{ wasPlaying: boolean } | null>(null);

  useEffect(() => {
    const paint = (pos: number) => {
      const pct = scale.fractionAt(player.getSnapshot().index, pos) * 100;
      if (headRef.current) headRef.current.style.left = `${pct}%`;
      if (fillRef.current) fillRef.current.style.width = `${pct}%`;
      trackRef.current?.setAttribute("aria-valuenow", String(Math.round(pos)));
      trackRef.current?.setAttribute("aria-valuetext", formatPlayhead(pos));
    };
    paint(player.getPosition());
    // Stepping changes the applied index without moving the position (events sharing a time).
    const offIndex = player.subscribe(() => paint(player.getPosition()));
    const offPosition = player.subscribePosition(paint);
    return () => {
      offIndex();
      offPosition();
    };
  }, [player, scale]);

  const paths = useMemo(
    () => ({
      acted: ticks(marks.acted, scale, 2, 22),
      silent: ticks(marks.silent, scale, 8, 22),
      messages: ticks(marks.messages, scale, 24, 30),
    }),
    [marks, scale],
  );

  const seekFromPointer = (e: PointerEvent) => {
    const rect = trackRef.current?.getBoundingClientRect();
    if (!rect || rect.width === 0) return;
    const frac = Math.min(Math.max(0, (e.clientX - rect.left) / rect.width), 1);
    player.seekIndex(scale.indexAt(frac));
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    try {
      e.currentTarget.setPointerCapture(e.pointerId);
    } catch {
      // A pointer that is already gone (or synthetic) cannot be captured; dragging still works inside the bar.
    }
    const wasPlaying = player.getSnapshot().playing;
    player.pause();
    dragging.current = { wasPlaying };
    onDragChange?.(true);
    seekFromPointer(e);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) seekFromPointer(e);
  };
  const onPointerUp = () => {
    if (!dragging.current) return;
    if (dragging.current.wasPlaying) player.play();
    dragging.current = null;
    onDragChange?.(false);
  };

  const onKey = (e: KeyboardEvent) => {
    const step = e.shiftKey ? "cycle" : "event";
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      e.stopPropagation();
      const dir = e.key === "ArrowRight" ? 1 : -1;
      if (step === "cycle") player.stepCycle(dir);
      else player.stepEvent(dir);
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      e.stopPropagation();
      player.seekIndex(e.key === "Home" ? 0 : player.getSnapshot().total);
    }
  };

  return (
    <div
      ref={trackRef}
      className="scrubber"
      role="slider"
      tabIndex={0}
      aria-label={t("replay.playhead")}
      aria-valuemin={0}
      aria-valuemax={Math.round(durationMs)}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={onKey}
      data-testid="scrubber"
    >
      <svg className="scrub-marks" viewBox={`0 0 ${W} 32`} preserveAspectRatio="none" aria-hidden="true">
        <path d={paths.messages} className="mark-msg" />
        <path d={paths.silent} className="mark-silent" />
        <path d={paths.acted} className="mark-acted" />
      </svg>
      <div ref={fillRef} className="scrub-fill" />
      <div ref={headRef} className="scrub-head" />
    </div>
  );
});

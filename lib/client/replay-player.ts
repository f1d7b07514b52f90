// The replay player: a playhead over a recorded session, independent of React. Discrete state
// (playing, speed, how many events are applied) goes to `subscribe` listeners; the continuous
// position goes to `subscribePosition` listeners every frame, so a scrubber can move at 60 fps
// without re-rendering the transcript (the idea of Langfuse's playhead store, session-wide).

export const REPLAY_SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16] as const;

export interface PlayerSnapshot {
  playing: boolean;
  speed: number;
  /** Number of events applied: events[0 .. index) are visible. */
  index: number;
  total: number;
  /** Length of the session in ms (last event time minus first). */
  durationMs: number;
  skipIdle: boolean;
}

export interface PlayerTimeline {
  /** Event times (ms epoch) in event order. */
  times: readonly number[];
  /** Event counts after which a cycle is complete (index just past each cycle.end), ascending. */
  cycleBoundaries: readonly number[];
}

export interface PlayerOptions {
  /** Schedules `cb` for the next frame and returns a cancel function. */
  frame?: (cb: (nowMs: number) => void) => () => void;
  /** Silences longer than this (wall-clock ms at the current speed) are shortened to it while playing. */
  idleCapMs?: number;
}

type Listener = () => void;

/** Function properties, not methods: the player is a closure, safe to pass its functions around unbound. */
export interface ReplayPlayer {
  getSnapshot: () => PlayerSnapshot;
  subscribe: (listener: Listener) => () => void;
  /** Playhead position in ms since the first event. */
  getPosition: () => number;
  subscribePosition: (listener: (positionMs: number) => void) => () => void;
  setTimeline: (timeline: PlayerTimeline) => void;
  play: () => void;
  pause: () => void;
  toggle: () => void;
  setSpeed: (speed: number) => void;
  /** Next/previous speed in REPLAY_SPEEDS. */
  nudgeSpeed: (direction: 1 | -1) => void;
  setSkipIdle: (skip: boolean) => void;
  stepEvent: (direction: 1 | -1) => void;
  stepCycle: (direction: 1 | -1) => void;
  seekTime: (positionMs: number) => void;
  seekIndex: (index: number) => void;
  /** Advances playback by `wallMs` of real time (the frame loop calls it; tests call it directly). */
  tick: (wallMs: number) => void;
  destroy: () => void;
}

const DEFAULT_IDLE_CAP_MS = 1_500;

export function clampSpeed(speed: number): number {
  let best: number = REPLAY_SPEEDS[0];
  for (const s of REPLAY_SPEEDS) if (Math.abs(s - speed) < Math.abs(best - speed)) best = s;
  return best;
}

/** Number of times <= t (times ascending). */
export function countAtOrBefore(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function browserFrame(cb: (nowMs: number) => void): () => void {
  const id = requestAnimationFrame(cb);
  return () => cancelAnimationFrame(id);
}

export function createReplayPlayer(initial: PlayerTimeline, options: PlayerOptions = {}): ReplayPlayer {
  const frame = options.frame ?? browserFrame;
  const idleCapMs = options.idleCapMs ?? DEFAULT_IDLE_CAP_MS;
  let timeline = normalize(initial);
  let snapshot: PlayerSnapshot = {
    playing: false,
    speed: 1,
    index: 0,
    total: timeline.times.length,
    durationMs: durationOf(timeline.times),
    skipIdle: true,
  };
  let position = 0;
  let cancelFrame: (() => void) | null = null;
  let lastFrameAt: number | null = null;
  const listeners = new Set<Listener>();
  const positionListeners = new Set<(p: number) => void>();

  function normalize(t: PlayerTimeline): PlayerTimeline {
    // Clock skew must not make the playhead run backwards: times become non-decreasing.
    const times: number[] = [];
    let max = -Infinity;
    for (const time of t.times) {
      max = Math.max(max, time);
      times.push(max);
    }
    return { times, cycleBoundaries: [...t.cycleBoundaries].sort((a, b) => a - b) };
  }

  function origin(): number {
    return timeline.times.length ? timeline.times[0] : 0;
  }

  function update(patch: Partial<PlayerSnapshot>): void {
    const next = { ...snapshot, ...patch };
    const changed = (Object.keys(next) as (keyof PlayerSnapshot)[]).some((k) => next[k] !== snapshot[k]);
    if (!changed) return;
    snapshot = next;
    for (const l of listeners) l();
  }

  function setPosition(p: number): void {
    position = Math.min(Math.max(0, p), snapshot.durationMs);
    for (const l of positionListeners) l(position);
  }

  function timeOfIndex(index: number): number {
    // Position of the playhead when exactly `index` events are applied: the last applied event.
    return index <= 0 ? 0 : timeline.times[index - 1] - origin();
  }

  function applyIndex(index: number): void {
    const clamped = Math.min(Math.max(0, index), timeline.times.length);
    setPosition(timeOfIndex(clamped));
    update({ index: clamped });
  }

  function stopLoop(): void {
    cancelFrame?.();
    cancelFrame = null;
    lastFrameAt = null;
  }

  function loop(now: number): void {
    const dt = lastFrameAt === null ? 0 : now - lastFrameAt;
    lastFrameAt = now;
    tick(dt);
    if (snapshot.playing) cancelFrame = frame(loop);
  }

  function tick(wallMs: number): void {
    if (!snapshot.playing) return;
    const { times } = timeline;
    let from = position;
    if (snapshot.skipIdle && snapshot.index < times.length) {
      // A silence longer than the cap is entered at its last `cap` of session time.
      const nextEventAt = times[snapshot.index] - origin();
      const cap = idleCapMs * snapshot.speed;
      if (nextEventAt - from > cap) from = nextEventAt - cap;
    }
    setPosition(from + wallMs * snapshot.speed);
    const index = countAtOrBefore(times, origin() + position);
    const ended = index >= times.length && position >= snapshot.durationMs;
    update({ index: Math.max(index, snapshot.index), playing: !ended });
    if (ended) stopLoop();
  }

  const player: ReplayPlayer = {
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getPosition: () => position,
    subscribePosition(listener) {
      positionListeners.add(listener);
      return () => positionListeners.delete(listener);
    },
    setTimeline(t) {
      timeline = normalize(t);
      const durationMs = durationOf(timeline.times);
      update({ total: timeline.times.length, durationMs, index: Math.min(snapshot.index, timeline.times.length) });
      setPosition(position);
    },
    play() {
      if (snapshot.playing || timeline.times.length === 0) return;
      // Playing from the end starts over, like any media player.
      if (snapshot.index >= timeline.times.length) applyIndex(0);
      update({ playing: true });
      lastFrameAt = null;
      cancelFrame = frame(loop);
    },
    pause() {
      stopLoop();
      update({ playing: false });
    },
    toggle() {
      if (snapshot.playing) player.pause();
      else player.play();
    },
    setSpeed(speed) {
      update({ speed: clampSpeed(speed) });
    },
    nudgeSpeed(direction) {
      const i = REPLAY_SPEEDS.indexOf(snapshot.speed as (typeof REPLAY_SPEEDS)[number]);
      const next = REPLAY_SPEEDS[Math.min(Math.max(0, i + direction), REPLAY_SPEEDS.length - 1)];
      update({ speed: next });
    },
    setSkipIdle(skip) {
      update({ skipIdle: skip });
    },
    stepEvent(direction) {
      player.pause();
      applyIndex(snapshot.index + direction);
    },
    stepCycle(direction) {
      player.pause();
      const bounds = timeline.cycleBoundaries;
      const target =
        direction > 0
          ? (bounds.find((b) => b > snapshot.index) ?? timeline.times.length)
          : ([...bounds].reverse().find((b) => b < snapshot.index) ?? 0);
      applyIndex(target);
    },
    seekTime(positionMs) {
      setPosition(positionMs);
      // The very start means "before anything", even though the first event sits at 0.
      update({ index: positionMs <= 0 ? 0 : countAtOrBefore(timeline.times, origin() + position) });
    },
    seekIndex(index) {
      applyIndex(index);
    },
    tick,
    destroy() {
      stopLoop();
      listeners.clear();
      positionListeners.clear();
    },
  };
  return player;
}

function durationOf(times: readonly number[]): number {
  return times.length ? times[times.length - 1] - times[0] : 0;
}

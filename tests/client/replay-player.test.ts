// The replay player without a browser: frames are driven by hand through tick().
import { describe, expect, it } from "vitest";
import {
  REPLAY_SPEEDS,
  clampSpeed,
  countAtOrBefore,
  createReplayPlayer,
  type PlayerTimeline,
} from "../../lib/client/replay-player";
import { playerTimelineOf } from "../../lib/client/replay-cursor";
import { fixtureEvents } from "./fixture";

/** 10 events at t = 0, 100, ..., 900 ms; cycles complete after events 3 and 7. */
const tl: PlayerTimeline = {
  times: Array.from({ length: 10 }, (_, i) => 1_000_000 + i * 100),
  cycleBoundaries: [3, 7],
};

function manual() {
  const frames: ((now: number) => void)[] = [];
  const player = createReplayPlayer(tl, {
    frame: (cb) => {
      frames.push(cb);
      return () => frames.splice(frames.indexOf(cb), 1);
    },
  });
  return { player, frames };
}

describe("replay player", () => {
  it("starts paused before the first event", () => {
    const { player } = manual();
    expect(player.getSnapshot()).toMatchObject({ playing: false, index: 0, total: 10, durationMs: 900, speed: 1 });
    expect(player.getPosition()).toBe(0);
  });

  it("steps by event, clamped to the ends, with the playhead on the last applied event", () => {
    const { player } = manual();
    player.stepEvent(-1);
    expect(player.getSnapshot().index).toBe(0);
    player.stepEvent(1);
    player.stepEvent(1);
    expect(player.getSnapshot().index).toBe(2);
    expect(player.getPosition()).toBe(100);
    for (let i = 0; i < 20; i++) player.stepEvent(1);
    expect(player.getSnapshot().index).toBe(10);
    expect(player.getPosition()).toBe(900);
  });

  it("steps by cycle to the next and previous cycle boundary", () => {
    const { player } = manual();
    player.stepCycle(1);
    expect(player.getSnapshot().index).toBe(3);
    player.stepCycle(1);
    expect(player.getSnapshot().index).toBe(7);
    player.stepCycle(1);
    expect(player.getSnapshot().index).toBe(10);
    player.stepCycle(-1);
    expect(player.getSnapshot().index).toBe(7);
    player.seekIndex(5);
    player.stepCycle(-1);
    expect(player.getSnapshot().index).toBe(3);
    player.stepCycle(-1);
    expect(player.getSnapshot().index).toBe(0);
  });

  it("plays in real time times the speed and pauses itself at the end", () => {
    const { player } = manual();
    player.play();
    expect(player.getSnapshot().playing).toBe(true);
    player.tick(50);
    expect(player.getSnapshot().index).toBe(1);
    player.tick(100);
    expect(player.getSnapshot().index).toBe(2);
    player.setSpeed(4);
    player.tick(100);
    expect(player.getPosition()).toBe(550);
    expect(player.getSnapshot().index).toBe(6);
    player.tick(1_000);
    expect(player.getSnapshot()).toMatchObject({ index: 10, playing: false });
  });

  it("restarts from the beginning when played at the end", () => {
    const { player } = manual();
    player.seekIndex(10);
    player.play();
    expect(player.getSnapshot().index).toBe(0);
    expect(player.getSnapshot().playing).toBe(true);
  });

  it("drives itself from frames once playing", () => {
    const { player, frames } = manual();
    player.play();
    frames.shift()?.(1_000);
    frames.shift()?.(1_250);
    expect(player.getPosition()).toBe(250);
    player.pause();
    expect(frames).toHaveLength(0);
  });

  it("offers 0.25x to 16x and snaps other values to the nearest", () => {
    expect(REPLAY_SPEEDS[0]).toBe(0.25);
    expect(REPLAY_SPEEDS[REPLAY_SPEEDS.length - 1]).toBe(16);
    expect(clampSpeed(100)).toBe(16);
    expect(clampSpeed(0.01)).toBe(0.25);
    expect(clampSpeed(3)).toBe(2);
    const { player } = manual();
    player.nudgeSpeed(1);
    expect(player.getSnapshot().speed).toBe(2);
    for (let i = 0; i < 10; i++) player.nudgeSpeed(1);
    expect(player.getSnapshot().speed).toBe(16);
    for (let i = 0; i < 10; i++) player.nudgeSpeed(-1);
    expect(player.getSnapshot().speed).toBe(0.25);
  });

  it("scrubs to a time and applies exactly the events at or before it", () => {
    const { player } = manual();
    player.seekTime(450);
    expect(player.getSnapshot().index).toBe(5);
    player.seekTime(-50);
    expect(player.getSnapshot().index).toBe(0);
    player.seekTime(10_000);
    expect(player.getSnapshot().index).toBe(10);
    expect(player.getPosition()).toBe(900);
  });

  it("shortens long silences while playing when skipIdle is on", () => {
    const gap: PlayerTimeline = { times: [0, 100, 3_600_100], cycleBoundaries: [] };
    const player = createReplayPlayer(gap, { frame: () => () => undefined, idleCapMs: 1_000 });
    player.play();
    player.tick(200);
    expect(player.getSnapshot().index).toBe(2);
    player.tick(500);
    expect(player.getSnapshot().index).toBe(2);
    player.tick(600);
    expect(player.getSnapshot().index).toBe(3);
    const literal = createReplayPlayer(gap, { frame: () => () => undefined, idleCapMs: 1_000 });
    literal.setSkipIdle(false);
    literal.play();
    literal.tick(5_000);
    expect(literal.getSnapshot().index).toBe(2);
  });

  it("notifies discrete listeners on change only, and position listeners every tick", () => {
    const { player } = manual();
    let discrete = 0;
    const positions: number[] = [];
    player.subscribe(() => discrete++);
    player.subscribePosition((p) => positions.push(p));
    player.play();
    player.tick(10);
    player.tick(10);
    player.tick(10);
    expect(positions).toEqual([10, 20, 30]);
    // play, then the first event applied; the next ticks cross no event.
    expect(discrete).toBe(2);
  });

  it("follows a growing recording", () => {
    const { player } = manual();
    player.seekIndex(10);
    player.setTimeline({ times: [...tl.times, 1_000_950], cycleBoundaries: [3, 7, 11] });
    expect(player.getSnapshot()).toMatchObject({ total: 11, index: 10, durationMs: 950 });
    player.stepCycle(1);
    expect(player.getSnapshot().index).toBe(11);
  });

  it("never runs backwards when clocks disagree", () => {
    const player = createReplayPlayer(
      { times: [100, 300, 200, 400], cycleBoundaries: [] },
      { frame: () => () => undefined },
    );
    player.seekTime(150);
    expect(player.getSnapshot().index).toBe(1);
    player.seekTime(200);
    expect(player.getSnapshot().index).toBe(3);
  });

  it("reads its timeline from monitor events", () => {
    const t = playerTimelineOf(fixtureEvents);
    expect(t.times).toHaveLength(fixtureEvents.length);
    expect(t.cycleBoundaries).toHaveLength(3);
    for (const b of t.cycleBoundaries) expect(fixtureEvents[b - 1].type).toBe("cycle.end");
    expect(countAtOrBefore([1, 2, 2, 3], 2)).toBe(3);
  });
});

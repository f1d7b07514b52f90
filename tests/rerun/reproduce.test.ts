// A re-run with nothing changed reproduces its original exactly: every event, at the same engine time,
// with the same data (ids aside), and reports no divergence.
import { afterEach, describe, expect, it } from "vitest";
import { rerun } from "../../server/rerun/run";
import { comparable, planOf, recordSession, scriptOf, type Recording } from "../support/recorded-session";

let recording: Recording | null = null;
afterEach(async () => {
  await recording?.close();
  recording = null;
});

describe("re-run of a recorded session", () => {
  for (const [file, isGroupChat] of [
    ["examples/group-chat.jsonl", true],
    ["examples/english-chat.jsonl", true],
    ["examples/slang-chat.jsonl", true],
    ["examples/private-wait.jsonl", false],
  ] as const) {
    it(`reproduces ${file} exactly`, async () => {
      recording = await recordSession({ lines: scriptOf(file), isGroupChat });
      const recorded = await recording.recorded();
      expect(recorded.calls.length).toBeGreaterThan(0);
      const result = await rerun(recorded, recording.world(), planOf());
      expect(result.divergence).toBeNull();
      const original = recorded.events.filter((e) => e.type !== "session.stop");
      const again = result.events.filter((e) => e.type !== "session.stop");
      expect(again.map(comparable)).toEqual(original.map(comparable));
      expect(result.stats.replayedCalls).toBe(recorded.calls.filter((c) => c.cycleId !== null).length);
      expect(result.stats.liveCalls).toBe(0);
    });
  }
});

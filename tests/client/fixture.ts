// Real monitor events of one simulated group chat (3 cycles: no_action, reply, finish).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";

export const fixtureEvents: MonitorEvent[] = readFileSync(
  fileURLToPath(new URL("../../e2e/fixtures/group-chat.events.jsonl", import.meta.url)),
  "utf8",
)
  .split("\n")
  .filter(Boolean)
  .map((line) => monitorEventSchema.parse(JSON.parse(line)));

export const SESSION = fixtureEvents[0].sessionId;

/** Deterministic shuffle (no Math.random in tests). */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

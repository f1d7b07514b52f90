// Real monitor events of one simulated group chat (3 cycles: no_action, reply, finish).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { SessionSummary } from "../../lib/api/schemas";
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

/** A sessions-list row of the fixture's session, idle, with overrides. */
export function summaryRow(over: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: SESSION,
    name: "demo",
    isGroupChat: true,
    platform: "simulate",
    groupId: "g",
    userId: null,
    agentState: "stop",
    stage: "",
    stageDetail: "",
    roundText: "",
    lastActiveAt: 0,
    createdAt: 0,
    cycleCount: 0,
    lastSeq: 0,
    running: false,
    pendingMessages: 0,
    waitDeadline: null,
    totalTokens: 0,
    costUsd: 0,
    unpricedCalls: 0,
    archivedAt: null,
    ...over,
  };
}

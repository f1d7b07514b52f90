// What the replay shows of re-runs and forks, UI-agnostic: the fork dialog's choices taken from the
// recording (messages, the cycle's tool calls, the tools offered), a short summary of each edit, the
// links of a divergence (to /diff and to the original at that cycle), and values shown as plain text.
import { diffHref } from "../rerun/diff-api";
import type { MessageKey, MessageVars } from "../i18n/messages";
import type { ForkEdit, SessionOrigin } from "../rerun/schemas";
import type { CycleView, Timeline } from "./timeline";

const enc = encodeURIComponent;

export function replayHref(sessionId: string, cycleId?: string | null): string {
  const base = `/sessions/${enc(sessionId)}/replay`;
  return cycleId ? `${base}?cycle=${enc(cycleId)}` : base;
}

/**
 * The /diff of the two diverging cycles (`a=<session>:<cycle>`); of the two whole sessions when one side
 * has no cycle there (a missing or extra cycle).
 */
export function divergenceDiffHref(
  originSessionId: string,
  thisSessionId: string,
  divergence: { cycleId: string; rerunCycleId: string | null },
): string {
  if (!divergence.cycleId || !divergence.rerunCycleId)
    return diffHref({ sessionId: originSessionId }, { sessionId: thisSessionId });
  return diffHref(
    { sessionId: originSessionId, cycleId: divergence.cycleId },
    { sessionId: thisSessionId, cycleId: divergence.rerunCycleId },
  );
}

/** A recorded value as text (strings as they are, the rest as indented JSON; absent as "—"). */
export function valueText(value: unknown): string {
  if (value === undefined) return "—";
  if (typeof value === "string") return value;
  // JSON.stringify gives undefined only for functions and symbols, which no wire value holds.
  return JSON.stringify(value, null, 2) ?? typeof value;
}

/** The first line of a text, cut to `max` characters (a summary, never the whole untrusted text). */
export function clip(text: string, max = 60): string {
  const line = text.split("\n", 1)[0];
  return line.length > max || line.length < text.length ? `${line.slice(0, max).trimEnd()}…` : line;
}

export interface Phrase {
  key: MessageKey;
  vars: MessageVars;
}

export function editPhrase(edit: ForkEdit): Phrase {
  switch (edit.kind) {
    case "drop_message":
      return { key: "rerun.edit.drop_message", vars: { id: edit.messageId } };
    case "add_message":
      return { key: "rerun.edit.add_message", vars: { name: edit.userName, text: clip(edit.text) } };
    case "tool_output":
      return { key: "rerun.edit.tool_output", vars: { id: edit.toolCallId, text: clip(edit.content) } };
    case "tool_off":
      return { key: "rerun.edit.tool_off", vars: { tool: edit.toolName } };
  }
}

/** The settings a derived session ran with, one phrase each. */
export function settingsPhrases(settings: SessionOrigin["settings"]): Phrase[] {
  if (!settings) return [];
  const out: Phrase[] = [];
  for (const [section, values] of [
    ["bot", settings.bot],
    ["chat", settings.chat],
  ] as const)
    for (const [key, value] of Object.entries(values ?? {}))
      out.push({ key: "rerun.setting.value", vars: { path: `${section}.${key}`, value: clip(valueText(value)) } });
  for (const [name, text] of Object.entries(settings.prompts ?? {}))
    out.push(
      text === null
        ? { key: "rerun.setting.promptRemoved", vars: { name } }
        : { key: "rerun.setting.prompt", vars: { name, count: text.length } },
    );
  return out;
}

/** 1-based position of a cycle in the original ("cycle N" to the operator), null when it is not there. */
export function cycleNumber(timeline: Pick<Timeline, "items"> | null, cycleId: string | null): number | null {
  if (!timeline || !cycleId) return null;
  let n = 0;
  for (const item of timeline.items)
    if (item.kind === "cycle") {
      n += 1;
      if (item.cycle.cycleId === cycleId) return n;
    }
  return null;
}

export interface MessageChoice {
  messageId: string;
  speaker: string;
  userId: string | null;
  text: string;
  /** It arrived after the fork cycle began (dropping it changes a later cycle). */
  later: boolean;
}

/** The chat's inbound messages, in order, for "drop a message" (the bot's own are not arrivals). */
export function messageChoices(timeline: Pick<Timeline, "items">, forkCycleId: string | null): MessageChoice[] {
  const out: MessageChoice[] = [];
  let later = false;
  for (const item of timeline.items) {
    if (item.kind === "cycle" && item.cycle.cycleId === forkCycleId) later = true;
    if (item.kind !== "message" || item.event.type === "message.sent") continue;
    const d = item.event.data;
    out.push({ messageId: d.messageId, speaker: d.speakerName, userId: d.userId ?? null, text: d.content, later });
  }
  return out;
}

/** Distinct speakers (name and id) of the chat, for "add a message" as one of them. */
export function speakerChoices(messages: readonly MessageChoice[]): { name: string; userId: string | null }[] {
  const seen = new Map<string, string | null>();
  for (const m of messages) if (!seen.has(m.speaker)) seen.set(m.speaker, m.userId);
  return [...seen].map(([name, userId]) => ({ name, userId }));
}

/** The tool calls of the fork cycle (planner calls and their executions), for "replace a tool's output". */
export function toolCallChoices(cycle: CycleView | null): { id: string; name: string; result: string }[] {
  if (!cycle) return [];
  const out = new Map<string, { id: string; name: string; result: string }>();
  for (const call of cycle.finalized?.planner?.toolCalls ?? [])
    out.set(call.id, { id: call.id, name: call.name, result: "" });
  for (const t of cycle.tools)
    out.set(t.toolCallId, { id: t.toolCallId, name: t.toolName, result: t.result ?? t.summary });
  return [...out.values()];
}

/** The tools offered to the planner at the fork cycle; every tool offered in the session when it had no planner call. */
export function toolChoices(timeline: Pick<Timeline, "items">, cycle: CycleView | null): string[] {
  const names = (c: CycleView) => (c.finalized?.request?.tools ?? []).map((t) => t.function.name);
  const own = cycle ? names(cycle) : [];
  if (own.length) return [...new Set(own)].sort();
  const all = new Set<string>();
  for (const item of timeline.items) if (item.kind === "cycle") for (const n of names(item.cycle)) all.add(n);
  return [...all].sort();
}

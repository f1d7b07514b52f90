// Context selection for one model request, and history trimming
// (docs/engine-rules.md#selection and #trimming).
import type { LlmMessage } from "../../../lib/llm/messages";
import { countsInContext, type AssistantMessage, type HistoryMessage } from "./messages";
import { isRenderable, renderHistoryMessage, type RenderOptions } from "./render";

export type RequestKind = "planner" | "timing_gate" | "sub_agent";

export interface SelectContextOptions extends RenderOptions {
  requestKind: RequestKind;
  /** Counting messages allowed in the window. */
  maxContextSize: number;
}

export interface ContextSelection {
  /** The history entries sent, as stored (not rewritten), chronological; messages[i] produced llmMessages[i]. */
  messages: HistoryMessage[];
  llmMessages: LlmMessage[];
  /** Counting messages the window took in (at most maxContextSize). */
  selectedCount: number;
}

/** What each request kind may see (step 1). */
function visibleTo(kind: RequestKind, m: HistoryMessage): boolean {
  if (kind === "timing_gate") return true;
  // Hints for invalid gate replies are for the gate only.
  if (m.kind === "reference") return m.audience !== "timing_gate";
  // The planner never sees the gate's own tool chain.
  if (kind === "planner" && (m.kind === "assistant" || m.kind === "tool_result")) return m.source !== "timing_gate";
  return true;
}

function isToolOutput(m: HistoryMessage): m is Extract<HistoryMessage, { kind: "tool_result" | "tool_media" }> {
  return m.kind === "tool_result" || m.kind === "tool_media";
}

/** An assistant text message, the kind step 4 half-hides. */
function isAssistantText(m: HistoryMessage): m is AssistantMessage {
  return m.kind === "assistant" && m.source === "assistant" && m.content !== "";
}

interface Entry {
  source: HistoryMessage;
  /** What gets rendered: the source, or an assistant rewritten by steps 3 and 4. */
  view: HistoryMessage;
}

export function selectContext(history: readonly HistoryMessage[], options: SelectContextOptions): ContextSelection {
  // Step 2: newest to oldest, skipping the unrenderable, until the counted window is full.
  const picked: HistoryMessage[] = [];
  let selectedCount = 0;
  for (let i = history.length - 1; i >= 0 && selectedCount < options.maxContextSize; i--) {
    const m = history[i];
    if (!visibleTo(options.requestKind, m) || !isRenderable(m)) continue;
    if (countsInContext(m)) selectedCount++;
    picked.push(m);
  }
  picked.reverse();

  // Step 3: pair every tool output with its call. A call without its result is removed from its
  // message (OpenAI rejects a tool_call with no tool message after it); outputs without a kept
  // call are orphans and go. Results follow their call in call order, then the calls' media, so
  // the tool messages stay contiguous after the assistant message.
  const owner = new Map<string, HistoryMessage>();
  for (const m of picked) {
    if (m.kind !== "assistant") continue;
    for (const call of m.toolCalls) if (!owner.has(call.id)) owner.set(call.id, m);
  }
  const resultOf = new Map<string, HistoryMessage>();
  const mediaOf = new Map<string, HistoryMessage[]>();
  for (const m of picked) {
    if (m.kind === "tool_result" && owner.has(m.toolCallId) && !resultOf.has(m.toolCallId)) {
      resultOf.set(m.toolCallId, m);
    } else if (m.kind === "tool_media" && owner.has(m.toolCallId)) {
      const list = mediaOf.get(m.toolCallId);
      if (list) list.push(m);
      else mediaOf.set(m.toolCallId, [m]);
    }
  }

  const entries: Entry[] = [];
  for (const m of picked) {
    if (isToolOutput(m)) continue; // placed after their call below, or orphaned
    if (m.kind !== "assistant") {
      entries.push({ source: m, view: m });
      continue;
    }
    const calls = m.toolCalls.filter((c) => owner.get(c.id) === m && resultOf.has(c.id));
    if (m.content === "" && calls.length === 0) continue;
    entries.push({ source: m, view: calls.length === m.toolCalls.length ? m : { ...m, toolCalls: calls } });
    for (const c of calls) {
      const result = resultOf.get(c.id);
      if (result) entries.push({ source: result, view: result });
    }
    for (const c of calls) for (const media of mediaOf.get(c.id) ?? []) entries.push({ source: media, view: media });
  }

  // Step 4: hide the text of the earliest half of the assistant text messages; their calls and
  // results stay, and a message left with neither is dropped.
  let toHide = Math.floor(entries.filter((e) => isAssistantText(e.view)).length / 2);
  const shown: Entry[] = [];
  for (const e of entries) {
    if (toHide > 0 && isAssistantText(e.view)) {
      toHide--;
      if (e.view.toolCalls.length === 0) continue;
      // The reasoning stays with the calls: some providers require it back (the endpoint's rule decides).
      shown.push({ source: e.source, view: { ...e.view, content: "" } });
      continue;
    }
    shown.push(e);
  }

  const messages: HistoryMessage[] = [];
  const llmMessages: LlmMessage[] = [];
  for (const e of shown) {
    const rendered = renderHistoryMessage(e.view, options);
    if (rendered === null) continue;
    messages.push(e.source);
    llmMessages.push(rendered);
  }
  return { messages, llmMessages, selectedCount };
}

export interface TrimResult {
  kept: HistoryMessage[];
  /** Removed messages, oldest first (fed to expression/jargon learning by the caller). */
  removed: HistoryMessage[];
}

/**
 * When the counted messages exceed twice the window, drops the oldest until at most
 * maxContextSize count, plus the results and media of calls that went with them, so the kept
 * history never starts with an orphan tool output.
 */
export function trimHistory(history: readonly HistoryMessage[], maxContextSize: number): TrimResult {
  let counted = history.filter(countsInContext).length;
  if (counted <= 2 * maxContextSize) return { kept: [...history], removed: [] };

  let cut = 0;
  while (cut < history.length && counted > maxContextSize) {
    if (countsInContext(history[cut])) counted--;
    cut++;
  }
  const removed = history.slice(0, cut);
  const removedCalls = new Set<string>();
  for (const m of removed) if (m.kind === "assistant") for (const c of m.toolCalls) removedCalls.add(c.id);

  const kept: HistoryMessage[] = [];
  for (const m of history.slice(cut)) {
    // A tool output whose call was removed, or one at the head (its call cannot come later).
    if (isToolOutput(m) && (removedCalls.has(m.toolCallId) || kept.length === 0)) removed.push(m);
    else kept.push(m);
  }
  return { kept, removed };
}

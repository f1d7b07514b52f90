// The planner (docs/engine-rules.md#planner to #reasoning-dedup): which tools it is offered (visible, deferred pool, discovered
// through tool_search in the current window), the request it sends, the interruptible call and
// reasoning dedup.
import type { ModelRequest } from "../../lib/events/schemas";
import type { LlmMessage, LlmToolCall } from "../../lib/llm/messages";
import { isNearDuplicate } from "../../lib/text/similarity";
import { formatDateTime } from "../../lib/chat/prefix";
import { toLlmDefinition, type ToolSpec } from "../../lib/tools/schemas";
import { answeredBy, ModelAbortedError, ModelCallError } from "../llm/model-client";
import { timingToolNames } from "../tools/builtin/provider";
import type { HistoryMessage } from "./context/messages";
import { toMonitorToolCall, type CycleRecord } from "./cycle";
import type { PlannerInterruptGuard } from "./interrupt-guard";
import { buildPromptVars } from "./prompt-vars";
import { promptOptions, promptVersion, renderPrompt } from "./prompts/templates";
import { availabilityContext, type SessionScope } from "./session-scope";
import { sessionChat } from "./usage-meter";

export interface PlannerToolView {
  exposed: ToolSpec[];
  /** Deferred tools (discovered or not). */
  pool: ToolSpec[];
  discovered: Set<string>;
  withheld: CycleRecord["withheldTools"];
}

/** Where a spec goes for the planner: never (timing), offered directly, or into the deferred pool. */
export function plannerPlacement(spec: ToolSpec): "timing" | "visible" | "deferred" {
  if (timingToolNames.includes(spec.name)) return "timing";
  const meta = spec.metadata;
  if (spec.providerType === "builtin") {
    if (meta.builtinStage === "timing") return "timing";
    return meta.visibility === "deferred" ? "deferred" : "visible";
  }
  if (spec.providerType === "plugin") {
    if (meta.visibility === "visible") return "visible";
    if (meta.visibility === undefined && meta.coreTool === true) return "visible";
    return "deferred";
  }
  return "deferred";
}

/** Tool names found by successful tool_search calls that are still in the selected window. */
export function discoveredInWindow(selected: HistoryMessage[]): Set<string> {
  const found = new Set<string>();
  for (const m of selected) {
    if (m.kind !== "tool_result" || m.toolName !== "tool_search" || !m.success) continue;
    const structured = m.structuredContent;
    const names =
      structured && typeof structured === "object" && "matchedToolNames" in structured
        ? structured.matchedToolNames
        : null;
    if (Array.isArray(names)) {
      for (const n of names) if (typeof n === "string") found.add(n);
    } else {
      for (const line of m.content.split("\n")) {
        const match = /^- ([^\s]+)/.exec(line.trim());
        if (match) found.add(match[1]);
      }
    }
  }
  return found;
}

/** What the planner carries from one request to the next. */
export interface PlannerMemory {
  /** The last answer's reasoning text, for dedup (3.4). */
  previousText: string;
  /** The last tool view (deferred pool, discovered), read by tool_search. */
  toolView: PlannerToolView | null;
}

export async function buildPlannerToolView(
  rt: Pick<SessionScope, "session" | "registry">,
  selected: HistoryMessage[],
): Promise<PlannerToolView> {
  const ctx = availabilityContext(rt);
  const all = await rt.registry.listAllTools(ctx);
  const discoveredNames = discoveredInWindow(selected);
  const exposed: ToolSpec[] = [];
  const pool: ToolSpec[] = [];
  const withheld: CycleRecord["withheldTools"] = [];
  for (const entry of all) {
    const spec = entry.spec;
    if (entry.shadowedBy) {
      withheld.push({ name: spec.name, reason: "duplicate" });
      continue;
    }
    if (entry.disabledBy) {
      withheld.push({ name: spec.name, reason: entry.disabledBy === "toggle" ? "disabled" : "hidden" });
      continue;
    }
    const placement = plannerPlacement(spec);
    if (placement === "timing") withheld.push({ name: spec.name, reason: "timing_only" });
    else if (placement === "visible") exposed.push(spec);
    else {
      pool.push(spec);
      if (discoveredNames.has(spec.name)) exposed.push(spec);
      else withheld.push({ name: spec.name, reason: "deferred" });
    }
  }
  const discovered = new Set(pool.filter((s) => discoveredNames.has(s.name)).map((s) => s.name));
  return { exposed, pool, discovered, withheld };
}

export type PlannerOutcome =
  | {
      kind: "ok";
      content: string;
      toolCalls: LlmToolCall[];
      exposed: Set<string>;
      storedContent: string;
      reasoningContent: string;
    }
  | { kind: "interrupted" }
  | { kind: "llm_error"; error: string };

export async function runPlanner(
  rt: SessionScope,
  cycle: CycleRecord,
  memory: PlannerMemory,
  interrupts: PlannerInterruptGuard,
): Promise<PlannerOutcome> {
  const { clock, config, model, hooks, events } = rt.deps;
  const prompts = promptOptions(config);
  const selection = rt.history.select({
    requestKind: "planner",
    maxContextSize: rt.maxContextSize,
    vision: config.chat.vision,
  });
  const view = await buildPlannerToolView(rt, selection.messages);
  memory.toolView = view;
  cycle.withheldTools = view.withheld;

  const messages: LlmMessage[] = [
    {
      role: "system",
      content: renderPrompt("maisaka_chat", buildPromptVars(config, rt.session.isGroupChat), prompts),
    },
    ...selection.llmMessages,
  ];
  const undiscovered = view.pool.filter((s) => !view.discovered.has(s.name));
  if (undiscovered.length) {
    const list = undiscovered.map((s, i) => `${i + 1}. ${s.name}: ${s.description}`).join("\n");
    messages.push({
      role: "user",
      content: renderPrompt("deferred_tools_reminder", { tools: list }, prompts),
    });
  }
  messages.push({
    role: "user",
    content: renderPrompt("current_time", { datetime: formatDateTime(clock.now()) }, prompts),
  });

  const hooked = await hooks.run("maisaka.planner.before_request", {
    sessionId: rt.session.id,
    messages,
    tools: view.exposed.map(toLlmDefinition),
    selectedHistoryCount: selection.selectedCount,
  });
  const request: ModelRequest = {
    model: model.modelFor("planner"),
    messages: hooked.messages,
    tools: hooked.tools,
    maxTokens: null,
    selectedHistoryCount: selection.selectedCount,
    promptVersion: promptVersion(prompts, rt.deps.settingsVersion?.() ?? 0),
  };
  cycle.request = request;
  const exposedNames = new Set(hooked.tools.map((t) => t.function.name));

  const signal = interrupts.begin(rt.stopSignal);
  const startedAt = clock.now();
  try {
    const response = await sessionChat(rt, {
      task: "planner",
      messages: request.messages,
      tools: request.tools,
      signal,
      onRetry: (p) => events.emit(rt.session.id, "llm.retry", p),
      onError: (p) => events.emit(rt.session.id, "llm.error", p),
    });
    interrupts.answered();
    const after = await hooks.run("maisaka.planner.after_response", {
      sessionId: rt.session.id,
      content: response.content,
      toolCalls: response.toolCalls,
      promptTokens: response.usage.promptTokens,
      completionTokens: response.usage.completionTokens,
    });
    const text = response.reasoningContent || after.content;
    const duplicate = isNearDuplicate(text, memory.previousText);
    memory.previousText = text;
    const storedContent = duplicate ? renderPrompt("reasoning_dedup", {}, prompts) : after.content;
    const durationMs = clock.now() - startedAt;
    const answer = answeredBy(response);
    cycle.timeRecords.planner = durationMs;
    cycle.planner = {
      content: after.content,
      reasoningContent: response.reasoningContent,
      toolCalls: after.toolCalls.map(toMonitorToolCall),
      promptTokens: after.promptTokens,
      completionTokens: after.completionTokens,
      totalTokens: after.promptTokens + after.completionTokens,
      durationMs,
      dedupReplaced: duplicate,
      ...(answer ? { answeredBy: answer } : {}),
    };
    return {
      kind: "ok",
      content: after.content,
      toolCalls: after.toolCalls,
      exposed: exposedNames,
      storedContent,
      reasoningContent: response.reasoningContent,
    };
  } catch (error) {
    cycle.timeRecords.planner = clock.now() - startedAt;
    if (error instanceof ModelAbortedError && interrupts.interrupted) return { kind: "interrupted" };
    if (error instanceof ModelCallError) return { kind: "llm_error", error: error.message };
    throw error;
  } finally {
    interrupts.end();
  }
}

// The timing gate sub-agent (docs/engine-rules.md#timing-gate): decides continue / no_action / wait. It sees only the
// three timing tools, answers in at most timingGateMaxTokens, and the first call naming an
// available timing tool wins. Without a valid call it gets a hint and retries, 3 attempts, then
// no_action.
import type { ModelRequest, TimingAction, TimingGateResultData } from "../../lib/events/schemas";
import type { LlmMessage, LlmToolCall } from "../../lib/llm/messages";
import { toLlmDefinition } from "../../lib/tools/schemas";
import { historyContent } from "../../lib/tools/history-content";
import { answeredBy, ModelAbortedError, ModelCallError, type ChatResponse } from "../llm/model-client";
import { timingToolNames } from "../tools/builtin/provider";
import { toMonitorToolCall, parseToolArguments, type CycleRecord } from "./cycle";
import { buildPromptVars } from "./prompt-vars";
import { promptOptions, promptVersion, renderPrompt } from "./prompts/templates";
import { availabilityContext, executionContext, newUid, type SessionScope } from "./session-scope";
import { sessionChat } from "./usage-meter";

export const TIMING_GATE_MAX_ATTEMPTS = 3;

export type GateOutcome =
  | { action: "continue" }
  | { action: "no_action"; cooldownMs: number }
  | { action: "wait"; callId: string; seconds: number }
  | { action: "llm_error"; error: string };

/**
 * `forced`: the one-shot force-continue flag was set (an @ or a mention): continue without a model
 * call. The gate only decides; the reasoning loop applies the outcome to the agent state.
 */
export async function runTimingGate(rt: SessionScope, cycle: CycleRecord, forced: boolean): Promise<GateOutcome> {
  const { clock, config, model } = rt.deps;
  const startedAt = clock.now();
  const finish = (
    action: TimingAction,
    extra: Partial<TimingGateResultData>,
    request: ModelRequest | null,
  ): TimingGateResultData => {
    const result: TimingGateResultData = {
      cycleId: cycle.cycleId,
      action,
      content: "",
      toolCalls: [],
      promptTokens: 0,
      completionTokens: 0,
      durationMs: clock.now() - startedAt,
      selectedHistoryCount: 0,
      ...extra,
    };
    cycle.timingGate = { request, result };
    cycle.timeRecords.timingGate = result.durationMs;
    rt.deps.events.emit(rt.session.id, "timing_gate.result", result);
    return result;
  };

  if (forced) {
    finish("continue", { forced: true, content: "" }, null);
    return { action: "continue" };
  }

  const specs = (await rt.registry.listTools(availabilityContext(rt))).filter((s) => timingToolNames.includes(s.name));
  const available = new Set(specs.map((s) => s.name));
  const selection = rt.history.select({ requestKind: "timing_gate", maxContextSize: rt.maxContextSize });
  const vars = buildPromptVars(config, rt.session.isGroupChat);
  const prompts = promptOptions(config);
  const system: LlmMessage = { role: "system", content: renderPrompt("maisaka_timing_gate", vars, prompts) };
  const baseMessages: LlmMessage[] = [system, ...selection.llmMessages];
  const hints: LlmMessage[] = [];
  const tools = specs.map(toLlmDefinition);
  let promptTokens = 0;
  let completionTokens = 0;
  let request: ModelRequest | null = null;
  let response: ChatResponse | null = null;
  let chosen: LlmToolCall | null = null;
  let attempts = 0;

  for (; attempts < TIMING_GATE_MAX_ATTEMPTS && !chosen;) {
    attempts++;
    request = {
      model: model.modelFor("timingGate"),
      messages: [...baseMessages, ...hints],
      tools,
      maxTokens: config.chat.timingGateMaxTokens,
      selectedHistoryCount: selection.selectedCount,
      promptVersion: promptVersion(prompts, rt.deps.settingsVersion?.() ?? 0),
    };
    try {
      response = await sessionChat(rt, {
        task: "timingGate",
        messages: request.messages,
        tools,
        maxTokens: request.maxTokens,
        signal: rt.stopSignal,
        onRetry: (p) => rt.deps.events.emit(rt.session.id, "llm.retry", p),
        onError: (p) => rt.deps.events.emit(rt.session.id, "llm.error", p),
      });
    } catch (error) {
      if (error instanceof ModelAbortedError || !(error instanceof ModelCallError)) throw error;
      finish("no_action", { promptTokens, completionTokens, attempts, content: error.message }, request);
      return { action: "llm_error", error: error.message };
    }
    promptTokens += response.usage.promptTokens;
    completionTokens += response.usage.completionTokens;
    chosen = response.toolCalls.find((c) => available.has(c.function.name)) ?? null;
    if (!chosen) {
      hints.push({
        role: "user",
        content: renderPrompt("timing_gate_invalid_hint", { tools: [...available].join(", ") }, prompts),
      });
    }
  }

  const answer = response ? answeredBy(response) : undefined;
  const common = {
    content: response?.content ?? "",
    toolCalls: (response?.toolCalls ?? []).map(toMonitorToolCall),
    promptTokens,
    completionTokens,
    selectedHistoryCount: selection.selectedCount,
    promptMessageCount: request?.messages.length ?? 0,
    attempts,
    ...(response?.reasoningContent ? { reasoningContent: response.reasoningContent } : {}),
    ...(answer ? { answeredBy: answer } : {}),
  };
  if (!chosen) {
    const cooldownMs = cooldown(rt, startedAt);
    finish("no_action", { ...common, cooldownMs }, request);
    return { action: "no_action", cooldownMs };
  }

  const decision = await applyDecision(rt, cycle, chosen, response?.content ?? "", response?.reasoningContent ?? "");
  if (decision.action === "no_action") {
    const cooldownMs = cooldown(rt, startedAt);
    finish("no_action", { ...common, cooldownMs }, request);
    return { action: "no_action", cooldownMs };
  }
  if (decision.action === "wait") {
    finish("wait", { ...common, waitSeconds: decision.seconds }, request);
    return { action: "wait", callId: chosen.id, seconds: decision.seconds };
  }
  finish(decision.action, common, request);
  return { action: "continue" };
}

function cooldown(rt: SessionScope, startedAt: number): number {
  const gateMs = rt.deps.clock.now() - startedAt;
  return Math.max(0, rt.deps.config.chat.timingGateCooldownSeconds * 1000 - gateMs);
}

/** Runs the chosen timing tool through the registry and records the gate's chain in history. */
async function applyDecision(
  rt: SessionScope,
  cycle: CycleRecord,
  call: LlmToolCall,
  content: string,
  reasoningContent: string,
): Promise<{ action: TimingAction; seconds: number }> {
  const args = parseToolArguments(call.function.arguments);
  const result = await rt.registry.invoke(
    {
      toolName: call.function.name,
      arguments: args.ok ? args.value : {},
      callId: call.id,
      sessionId: rt.session.id,
      streamId: rt.session.id,
      reasoning: content,
      metadata: { cycleId: cycle.cycleId },
    },
    executionContext(rt, content),
  );
  const now = rt.deps.clock.now();
  rt.history.append({
    kind: "assistant",
    uid: newUid(),
    ts: now,
    source: "timing_gate",
    content,
    toolCalls: [call],
    // Stored as returned; the endpoint's rule decides whether it goes back (DeepSeek thinking mode needs it).
    ...(reasoningContent ? { reasoningContent } : {}),
  });
  const declared = result.metadata.timingAction;
  const action: TimingAction =
    result.success && (declared === "continue" || declared === "no_action" || declared === "wait")
      ? declared
      : "no_action";
  if (action === "wait") {
    // The wait's result is added when the wait ends (timed out / new input).
    const seconds = typeof result.metadata.waitSeconds === "number" ? result.metadata.waitSeconds : 30;
    return { action, seconds };
  }
  rt.history.append({
    kind: "tool_result",
    uid: newUid(),
    ts: now,
    toolCallId: call.id,
    toolName: call.function.name,
    success: result.success,
    content: historyContent(result),
    source: "timing_gate",
  });
  return { action, seconds: 0 };
}

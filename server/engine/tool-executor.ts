// Serial execution of the planner's tool calls (docs/engine-rules.md#tool-execution): each result enters history right
// after its call, media items follow as their own messages, every call is recorded and emitted,
// and the first pausing result stops the batch.
import type { ToolExecutionData } from "../../lib/events/schemas";
import type { LlmToolCall } from "../../lib/llm/messages";
import { historyContent } from "../../lib/tools/history-content";
import { failedToolResult, postHistoryMessageSchema, type ToolExecutionResult } from "../../lib/tools/schemas";
import type { ToolRecord } from "../stores/tool-records";
import type { AssistantMessage } from "./context/messages";
import { parseToolArguments, type CycleRecord } from "./cycle";
import { describeError } from "./errors";
import { promptOptions, renderPrompt } from "./prompts/templates";
import { executionContext, newUid, type SessionScope } from "./session-scope";

export interface ToolBatchOutcome {
  /** Name of the tool whose result paused the loop, if any. */
  pausedBy: string | null;
}

const SUMMARY_CHARS = 200;

export async function executeToolCalls(
  rt: SessionScope,
  cycle: CycleRecord,
  assistant: AssistantMessage,
  exposed: Set<string>,
  reasoning: string,
  anchorMessageId: string | null,
  /** Called as each call starts (the runtime shows it as its stage). */
  onToolStart: (toolName: string) => void,
): Promise<ToolBatchOutcome> {
  const { clock, config } = rt.deps;
  const prompts = promptOptions(config);
  const executed = new Set<string>();
  const batchStarted = clock.now();
  let pausedBy: string | null = null;

  for (const call of assistant.toolCalls) {
    const name = call.function.name;
    onToolStart(name);
    const startedAt = clock.now();
    const args = parseToolArguments(call.function.arguments);
    const spec = exposed.has(name) ? await rt.registry.getToolSpec(name, executionContext(rt, reasoning)) : null;
    let result: ToolExecutionResult;
    if (!args.ok) {
      result = failedToolResult(name, renderPrompt("tool_arguments_invalid", { name, error: args.error }, prompts));
    } else if (!exposed.has(name)) {
      result = failedToolResult(name, renderPrompt("tool_not_exposed", { name }, prompts));
    } else {
      const invocation = {
        toolName: name,
        arguments: args.value,
        callId: call.id,
        sessionId: rt.session.id,
        streamId: rt.session.id,
        reasoning,
        metadata: { cycleId: cycle.cycleId, anchorMessageId },
      };
      result =
        (await rt.deps.toolAnswers?.answer(invocation, spec)) ??
        (await rt.registry.invoke(
          invocation,
          executionContext(rt, reasoning, { cycleId: cycle.cycleId, anchorMessageId }),
        ));
    }
    const durationMs = clock.now() - startedAt;
    const content = historyContent(result);
    executed.add(call.id);
    if (name !== "finish") appendResult(rt, call, result, content);

    const summary = `- ${name} [${result.success ? "success" : "failure"}]: ${content.slice(0, SUMMARY_CHARS)}`;
    const data: ToolExecutionData = {
      cycleId: cycle.cycleId,
      toolCallId: call.id,
      toolName: name,
      toolTitle: spec?.title ?? name,
      args: args.ok ? args.value : { _raw: call.function.arguments },
      success: result.success,
      durationMs,
      summary,
      providerName: spec?.providerName ?? "",
      result: content,
    };
    cycle.tools.push(data);
    rt.deps.events.emit(rt.session.id, "tool.execution", data);
    await recordTool(rt, {
      sessionId: rt.session.id,
      cycleId: cycle.cycleId,
      callId: call.id,
      toolName: name,
      providerName: spec?.providerName ?? "",
      providerType: spec?.providerType ?? "",
      arguments: args.ok ? args.value : {},
      success: result.success,
      content: result.content,
      errorMessage: result.errorMessage,
      structuredContent: result.structuredContent,
      result,
      reasoning,
      durationMs,
      ts: clock.now(),
    });

    if (result.metadata.pauseExecution === true) {
      pausedBy = name;
      break;
    }
  }

  // finish is erased from history; calls after a pause never ran and get no result.
  assistant.toolCalls = assistant.toolCalls.filter((c) => executed.has(c.id) && c.function.name !== "finish");
  if (!assistant.toolCalls.length && !assistant.content) rt.history.remove(assistant);
  else rt.history.replace(assistant);
  cycle.timeRecords.toolCalls = clock.now() - batchStarted;
  return { pausedBy };
}

/** The result, its media items as their own messages, then the result's notes for the model. */
function appendResult(rt: SessionScope, call: LlmToolCall, result: ToolExecutionResult, content: string): void {
  const now = rt.deps.clock.now();
  const name = call.function.name;
  const prompts = promptOptions(rt.deps.config);
  rt.history.append({
    kind: "tool_result",
    uid: newUid(),
    ts: now,
    toolCallId: call.id,
    toolName: name,
    success: result.success,
    content: content || renderPrompt(result.success ? "tool_succeeded" : "tool_failed", { name }, prompts),
    structuredContent: result.structuredContent,
  });
  result.contentItems.forEach((item, index) => {
    if (item.contentType === "text") return;
    rt.history.append({
      kind: "tool_media",
      uid: newUid(),
      ts: now,
      toolCallId: call.id,
      index,
      mimeType: item.mimeType,
      description: item.description || item.name || item.uri || item.contentType,
      data: item.contentType === "image" && item.data ? item.data : undefined,
    });
  });
  // Providers hand over results as they are: a note that is not a valid one is skipped.
  for (const raw of result.postHistoryMessages as unknown[]) {
    const note = postHistoryMessageSchema.safeParse(raw);
    if (!note.success) continue;
    rt.history.append({
      kind: "reference",
      uid: newUid(),
      ts: now,
      referenceType: note.data.referenceType,
      content: note.data.content,
    });
  }
}

async function recordTool(rt: SessionScope, record: Omit<ToolRecord, "id">): Promise<void> {
  try {
    await rt.deps.stores.toolRecords.record(record);
  } catch (error) {
    rt.deps.logger.warn(`[engine] tool record not stored: ${describeError(error)}`);
  }
}

// The re-run's tool calls: a call the original made is answered with its recorded result, at the time
// it came; the builtin tools that are the engine's own steps (reply, wait, …) run again, their model
// calls answered by the cassette; anything else never runs (a re-run has no side effects), unless the
// operator asked for read-only tools live.
import {
  failedToolResult,
  makeToolResult,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../lib/tools/schemas";
import type { ForkEdit } from "../../lib/rerun/schemas";
import { type ToolAnswerSource } from "../engine";
import { sleep, type Clock } from "../kernel/clock";
import type { ToolRecord } from "../stores/tool-records";

/**
 * Builtin tools whose outcome is the session's own state and its model calls, not outside data: they run
 * again, so a changed replyer prompt shows, and what they say lands in the history as it did.
 */
const ENGINE_STEPS = new Set([
  "reply",
  "send_emoji",
  "wait",
  "no_action",
  "finish",
  "continue",
  "tool_search",
  "view_complex_message",
]);

export interface RecordedToolsOptions {
  records: readonly ToolRecord[];
  edits: readonly ForkEdit[];
  clock: Clock;
  /** Read-only tools (readOnlyHint true) not in the recording run live. */
  liveReadOnly: boolean;
}

export class RecordedTools implements ToolAnswerSource {
  private readonly byCallId = new Map<string, ToolRecord>();
  private readonly replaced = new Map<string, Extract<ForkEdit, { kind: "tool_output" }>>();
  replayed = 0;
  live = 0;
  engineSteps = 0;

  constructor(private readonly opts: RecordedToolsOptions) {
    for (const record of opts.records) this.byCallId.set(record.callId, record);
    for (const edit of opts.edits) if (edit.kind === "tool_output") this.replaced.set(edit.toolCallId, edit);
  }

  answer(invocation: ToolInvocation, spec: ToolSpec | null): Promise<ToolExecutionResult> | null {
    const name = invocation.toolName;
    const edit = this.replaced.get(invocation.callId);
    if (edit) {
      return Promise.resolve(
        edit.success
          ? makeToolResult({ toolName: name, success: true, content: edit.content })
          : failedToolResult(name, edit.content),
      );
    }
    if (spec?.providerType === "builtin" && ENGINE_STEPS.has(name)) {
      this.engineSteps++;
      return null;
    }
    const record = this.byCallId.get(invocation.callId);
    if (record && record.toolName === name) {
      this.replayed++;
      return this.answerAt(record);
    }
    if (this.opts.liveReadOnly && spec?.annotation?.readOnlyHint === true) {
      this.live++;
      return null;
    }
    return Promise.resolve(
      failedToolResult(
        name,
        `${name} was not called in the original session: a re-run never runs a tool that may have effects.`,
      ),
    );
  }

  /** The recorded result, once the original's call had ended on the virtual clock. */
  private async answerAt(record: ToolRecord): Promise<ToolExecutionResult> {
    await sleep(this.opts.clock, record.ts - this.opts.clock.now());
    return (
      record.result ??
      makeToolResult({
        toolName: record.toolName,
        success: record.success,
        content: record.content,
        errorMessage: record.errorMessage,
        structuredContent: record.structuredContent,
      })
    );
  }
}

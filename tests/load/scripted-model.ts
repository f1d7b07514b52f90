// An in-process ModelClient that answers like a cooperative model, with a chosen latency per call and
// no HTTP: the timing gate continues, the planner either finishes at once ("finish") or replies to the
// newest chat message and then finishes ("reply"), the replyer writes one line. Shared by the load
// test (100-800 ms per call) and the benchmark (0 ms: only the engine's own work is left).
import type { LlmMessage, LlmToolCall, ModelTask } from "../../lib/llm/messages";
import {
  ModelAbortedError,
  type ChatRequest,
  type ChatResponse,
  type ModelClient,
  type ModelInfo,
} from "../../server/llm/model-client";
import { parseChatLine } from "../../server/llm/simulated/request-view";

export type PlannerPolicy = "finish" | "reply";

export interface ScriptedModelOptions {
  policy: PlannerPolicy;
  /** Delay of each answer in ms; absent = answered at once. */
  latencyMs?: (task: ModelTask) => number;
  /** The bot's nickname in config, to tell its own lines from the users' (default 麦麦). */
  botName?: string;
}

const DEFAULT_BOT_NAME = "麦麦";

const USAGE = { promptTokens: 100, completionTokens: 10, totalTokens: 110 };

export class ScriptedModel implements ModelClient {
  readonly calls: Record<ModelTask, number> = { planner: 0, timingGate: 0, replyer: 0, utils: 0 };
  /** The latest request of each task, so a benchmark can replay it without the engine. */
  readonly latest: Partial<Record<ModelTask, ChatRequest>> = {};
  private counter = 0;

  constructor(private readonly opts: ScriptedModelOptions) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.calls[request.task]++;
    this.latest[request.task] = request;
    const delay = this.opts.latencyMs?.(request.task) ?? 0;
    if (delay > 0) await abortableDelay(delay, request.signal, request.task);
    else if (request.signal?.aborted) throw new ModelAbortedError(`${request.task} model request was aborted`);
    const n = ++this.counter;
    const call = (name: string, args: Record<string, unknown> = {}): LlmToolCall => ({
      id: `call_${n}`,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    let content = "";
    let toolCalls: LlmToolCall[] = [];
    if (request.task === "timingGate") toolCalls = [call("continue")];
    else if (request.task === "planner") {
      const target =
        this.opts.policy === "reply" ? replyTarget(request.messages, this.opts.botName ?? DEFAULT_BOT_NAME) : null;
      content = target ? `第 ${n} 次思考：回复一下最新的消息。` : `第 ${n} 次思考：这一轮先到这里。`;
      toolCalls = [target ? call("reply", { msg_id: target }) : call("finish")];
    } else content = `收到（${n}）`;
    return {
      model: this.modelFor(request.task),
      content,
      reasoningContent: "",
      toolCalls,
      usage: USAGE,
      durationMs: delay,
      finishReason: toolCalls.length ? "tool_calls" : "stop",
    };
  }

  modelFor(task: ModelTask): string {
    return `scripted-${task}`;
  }

  info(): ModelInfo {
    return { provider: "in-process", name: "scripted", simulated: true };
  }
}

/** A uniform latency in [min, max] ms from a seeded generator, so runs are repeatable. */
export function uniformLatency(min: number, max: number, seed = 1): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return min + ((state >>> 0) / 0x1_0000_0000) * (max - min);
  };
}

/**
 * The newest chat message not yet answered: walking back from the end, a user's chat line comes
 * before any reply call. The bot's own lines (its replies, in history right after the reply call)
 * do not count.
 */
function replyTarget(messages: LlmMessage[], botName: string): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.function.name === "reply")) return null;
    if (m.role !== "user" || typeof m.content !== "string") continue;
    const line = parseChatLine(m.content);
    if (line && line.userName !== botName) return line.msgId;
  }
  return null;
}

function abortableDelay(ms: number, signal: AbortSignal | undefined, task: ModelTask): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => new ModelAbortedError(`${task} model request was aborted`);
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

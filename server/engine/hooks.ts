// Named hook points (docs/engine-rules.md#hooks). Handlers run serially in registration order; each may
// return a partial payload that replaces fields. None may abort: a failing or slow handler is
// logged and skipped.
import type { LlmMessage, LlmToolCall } from "../../lib/llm/messages";
import type { LlmToolDefinition } from "../../lib/tools/schemas";
import { systemClock, type Clock, type TimerHandle } from "../kernel/clock";

export interface HookPayloads {
  "maisaka.planner.before_request": {
    sessionId: string;
    messages: LlmMessage[];
    tools: LlmToolDefinition[];
    selectedHistoryCount: number;
  };
  "maisaka.planner.after_response": {
    sessionId: string;
    content: string;
    toolCalls: LlmToolCall[];
    promptTokens: number;
    completionTokens: number;
  };
  "maisaka.replyer.before_request": {
    sessionId: string;
    taskName: string;
    model: string;
    extraPrompt: string;
    replyToolArgs: Record<string, unknown>;
  };
  "maisaka.replyer.before_model_request": { sessionId: string; messages: LlmMessage[] };
  "maisaka.replyer.after_response": { sessionId: string; text: string; regenerate: boolean };
}

export type HookPoint = keyof HookPayloads;
export const hookPoints = [
  "maisaka.planner.before_request",
  "maisaka.planner.after_response",
  "maisaka.replyer.before_request",
  "maisaka.replyer.before_model_request",
  "maisaka.replyer.after_response",
] as const satisfies readonly HookPoint[];

export type HookHandler<P extends HookPoint> = (
  payload: Readonly<HookPayloads[P]>,
  signal: AbortSignal,
) => Promise<Partial<HookPayloads[P]> | void> | Partial<HookPayloads[P]> | void;

interface Registered<P extends HookPoint> {
  name: string;
  handler: HookHandler<P>;
  timeoutMs: number;
}

export interface HookLogger {
  warn(message: string): void;
}

type HandlerTable = { [P in HookPoint]: Registered<P>[] };

/** What the engine needs of the hooks: running a point's handlers over a payload. */
export interface HookRunner {
  run<P extends HookPoint>(point: P, payload: HookPayloads[P]): Promise<HookPayloads[P]>;
}

export class HookRegistry implements HookRunner {
  private readonly handlers: HandlerTable = {
    "maisaka.planner.before_request": [],
    "maisaka.planner.after_response": [],
    "maisaka.replyer.before_request": [],
    "maisaka.replyer.before_model_request": [],
    "maisaka.replyer.after_response": [],
  };

  /** Handler timeouts run on `clock`, the engine's injected clock (a fake one in tests). */
  constructor(
    private readonly logger: HookLogger = { warn: (m) => console.warn(m) },
    private readonly clock: Clock = systemClock,
  ) {}

  /** Returns an unregister function. */
  register<P extends HookPoint>(
    point: P,
    name: string,
    handler: HookHandler<P>,
    opts: { timeoutMs?: number } = {},
  ): () => void {
    const list = this.handlers[point] as Registered<P>[];
    const entry: Registered<P> = { name, handler, timeoutMs: opts.timeoutMs ?? 6_000 };
    list.push(entry);
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Removes every handler whose name starts with the prefix (e.g. a plugin's id). */
  unregisterByPrefix(prefix: string): void {
    for (const point of hookPoints) {
      const list = this.handlers[point] as Registered<HookPoint>[];
      for (let i = list.length - 1; i >= 0; i--) if (list[i].name.startsWith(prefix)) list.splice(i, 1);
    }
  }

  async run<P extends HookPoint>(point: P, payload: HookPayloads[P]): Promise<HookPayloads[P]> {
    let current = payload;
    for (const entry of this.handlers[point] as Registered<P>[]) {
      const controller = new AbortController();
      let timer: TimerHandle | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = this.clock.setTimer(entry.timeoutMs, () => {
            controller.abort();
            reject(new Error(`timed out after ${entry.timeoutMs} ms`));
          });
        });
        const patch = await Promise.race([Promise.resolve(entry.handler(current, controller.signal)), timeout]);
        if (patch && typeof patch === "object")
          current = mergePatch(current, patch, (m) => this.logger.warn(`[hooks] ${point} handler ${entry.name}: ${m}`));
      } catch (error) {
        this.logger.warn(`[hooks] ${point} handler ${entry.name} skipped: ${describe(error)}`);
      } finally {
        timer?.cancel();
      }
    }
    return current;
  }
}

/** Applies only fields whose type matches the original, so a sloppy handler cannot break a request. */
function mergePatch<T extends object>(current: T, patch: Partial<T>, warn: (m: string) => void): T {
  const next = { ...current };
  for (const key of Object.keys(patch) as (keyof T)[]) {
    const before = current[key];
    const after = patch[key];
    if (after === undefined) continue;
    if (sameKind(before, after)) next[key] = after;
    else warn(`ignored field ${String(key)} of the wrong type`);
  }
  return next;
}

/** Arrays only for arrays, plain objects only for objects (null and arrays are not objects here). */
function sameKind(before: unknown, after: unknown): boolean {
  if (Array.isArray(before) || Array.isArray(after)) return Array.isArray(before) && Array.isArray(after);
  if (before === null || after === null) return before === after;
  return typeof before === typeof after;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

// The re-run's model: each call is answered from the recorded call it matches (matching.ts), at the
// moment the original's answer came on the virtual clock, so a message that interrupted the planner
// then interrupts it again. The first call that matches nothing is the divergence; from there a model
// answers, or the run stops: a diverging gate or planner call fails (so its cycle ends keeping the
// request it made, which the diff compares), any other call waits until the runtime stops.
import type { ModelTask } from "../../lib/llm/messages";
import type { ModelCall, RecordedRequest } from "../../lib/rerun/cassette";
import { sleep, type Clock } from "../kernel/clock";
import {
  ModelAbortedError,
  ModelCallError,
  type ChatRequest,
  type ChatResponse,
  type ModelClient,
} from "../llm/model-client";
import { firstDifference, normalized, type Difference } from "./matching";
import type { Quiescence } from "./quiescence";

/** The tasks whose request a cycle records (planner.finalized): the diff compares them. */
const CYCLE_REQUESTS: ReadonlySet<ModelTask> = new Set(["timingGate", "planner"]);

/** The error of the call a run stopped at (continueWith stop): the cycle's error as the diff shows it. */
export const STOPPED_AT_DIVERGENCE =
  "the re-run stopped here: this request matches no recorded call, and the run goes on with no model (continueWith stop)";

export interface RequestDivergence extends Difference {
  task: ModelTask;
  /** The re-run's cycle the call belongs to (absent: outside a cycle). */
  cycleId?: string;
  /** The recorded call it was compared with (null: the original made no further call of this task). */
  recorded: ModelCall | null;
}

/** A recorded call with its request normalised by the matching rule. */
interface Recorded {
  call: ModelCall;
  request: RecordedRequest;
}

export interface CassetteOptions {
  /** The original's model calls in call order. */
  calls: readonly ModelCall[];
  clock: Clock;
  quiet: Quiescence;
  /** Calls made before this time (engine clock) are answered in order without comparing (the part before a fork). */
  forcedUntil: number;
  /** Answers once the run left the recording; null: the run stops at the divergence. */
  live: ModelClient | null;
  onDivergence(divergence: RequestDivergence): void;
}

export class CassetteModel implements ModelClient {
  /** Unconsumed recorded calls per task, in call order. */
  private readonly queues = new Map<ModelTask, Recorded[]>();
  private readonly firstModel = new Map<ModelTask, string>();
  private diverged = false;
  replayed = 0;
  liveCalls = 0;

  constructor(private readonly opts: CassetteOptions) {
    for (const call of opts.calls) {
      // Learning runs outside cycles and is off in a re-run: its calls are no part of the cassette.
      if (call.task === "utils" && call.cycleId === null) continue;
      const queue = this.queues.get(call.task) ?? [];
      // Normalised once: every call of the run compares against all of them.
      queue.push({ call, request: normalized(call.request) });
      this.queues.set(call.task, queue);
      if (!this.firstModel.has(call.task)) this.firstModel.set(call.task, call.model);
    }
  }

  /** The run left the recording and has no model to go on with. */
  get halted(): boolean {
    return this.diverged && this.opts.live === null;
  }

  /**
   * Resolves when the original made its next call of this task (on the virtual clock): the time the
   * engine spent before it (hooks) passes here too. At once past the divergence or when none is left.
   */
  untilNextCall(task: ModelTask): Promise<void> {
    const next = this.queues.get(task)?.[0]?.call;
    const wait = next && !this.diverged ? next.startedAt - this.opts.clock.now() : 0;
    return wait > 0 ? sleep(this.opts.clock, wait) : Promise.resolve();
  }

  modelFor(task: ModelTask): string {
    return this.firstModel.get(task) ?? this.opts.live?.modelFor(task) ?? "recorded";
  }

  info() {
    return { provider: "recording", name: this.modelFor("planner"), simulated: false };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    if (this.diverged) return this.answerLive(request);
    const actual: RecordedRequest = {
      messages: request.messages,
      tools: request.tools ?? [],
      maxTokens: request.maxTokens ?? null,
    };
    const queue = this.queues.get(request.task) ?? [];
    const forced = this.opts.clock.now() < this.opts.forcedUntil;
    const wanted = normalized(actual);
    // Forced: the next recorded call of the task, whatever was asked.
    const index = queue.findIndex((r) => forced || firstDifference(r.request, wanted) === null);
    if (index < 0) {
      const recorded = queue[0]?.call ?? null;
      const difference = queue[0]
        ? (firstDifference(queue[0].request, wanted) ?? { path: "", expected: null, actual: null })
        : { path: "", expected: null, actual: "a call the original did not make" };
      return this.diverge(request, { ...difference, task: request.task, cycleId: request.cycleId, recorded });
    }
    const [{ call }] = queue.splice(index, 1);
    this.replayed++;
    await this.untilAnswered(call, request.signal);
    if (call.aborted) {
      // The original was interrupted here; this call was not (no message arrived to do it).
      return this.diverge(request, {
        path: "aborted",
        expected: true,
        actual: false,
        task: request.task,
        cycleId: request.cycleId,
        recorded: call,
      });
    }
    if (!call.response) {
      const problem = { task: request.task, model: call.model, endpoint: call.endpoint, attempt: 1 };
      request.onError?.({ ...problem, error: call.error ?? "failed" });
      throw new ModelCallError(call.error ?? "the recorded call failed");
    }
    return { ...call.response, endpoint: call.endpoint, durationMs: call.durationMs };
  }

  private diverge(request: ChatRequest, divergence: RequestDivergence): Promise<ChatResponse> {
    this.diverged = true;
    this.opts.onDivergence(divergence);
    // The engine records a gate's or planner's request in its cycle only when the cycle ends: a call
    // left waiting for the stop would take it away (the cycle is cut), so it fails here instead. A
    // replyer's or an emoji choice's failure would send the planner on to another cycle: those wait.
    if (!this.opts.live && CYCLE_REQUESTS.has(request.task))
      return Promise.reject(new ModelCallError(STOPPED_AT_DIVERGENCE));
    return this.answerLive(request);
  }

  private answerLive(request: ChatRequest): Promise<ChatResponse> {
    const live = this.opts.live;
    if (!live) return waitForAbort(request.signal);
    this.liveCalls++;
    // Outside work: the clock stands still until it answers.
    return this.opts.quiet.track(live.chat(request));
  }

  /** Resolves when the original's answer came (on the virtual clock); rejects when the call is aborted. */
  private untilAnswered(call: ModelCall, signal: AbortSignal | undefined): Promise<void> {
    // An interrupted original ended when the message that aborted it arrived: that arrival comes first.
    const due = call.startedAt + call.durationMs + (call.aborted ? 1 : 0) - this.opts.clock.now();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        timer.cancel();
        reject(new ModelAbortedError("aborted"));
      };
      const timer = this.opts.clock.setTimer(due, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** A call of a run that stopped at its divergence: it ends when the runtime stops. */
function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) return reject(new ModelAbortedError("aborted"));
    signal?.addEventListener("abort", () => reject(new ModelAbortedError("aborted")), { once: true });
  });
}

// One chat session's runtime (engine.md section 2): the three states, message registration,
// trigger threshold with idle compensation, force-continue, the turn queue, debounce, the wait
// timer and planner interrupts. The turn itself runs in reasoning-loop.ts.
import type { AgentState } from "../../lib/events/schemas";
import type { ChatMessageRecord, SessionRecord } from "../stores/types";
import { BuiltinToolProvider } from "../tools/builtin/provider";
import { ToolRegistry } from "../tools/registry";
import { sleep, type TimerHandle } from "./clock";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { SessionLearner } from "./learning";
import type { PlannerToolView } from "./planner";
import { ReasoningLoop } from "./reasoning-loop";
import type { RecoveredSession } from "./recovery";
import { SessionToolHost } from "./session-host";
import { decideTrigger, LatencyWindow, talkValueAt, triggerThreshold } from "./triggers";

export type TurnTrigger = "message" | "timeout";

export interface RuntimeSnapshotState {
  version: 1;
  agentState: AgentState;
  history: HistoryMessage[];
  pending: ChatMessageRecord[];
  wait: { callId: string; deadline: number } | null;
  previousPlannerText: string;
  latency: { at: number; latencyMs: number }[];
  cycleCounter: number;
  forceContinue: boolean;
  talkFrequencyAdjust: number;
  /** The session's last event seq when the state was taken; written once the ledger holds it. */
  coveredSeq: number;
  /** Highest message store position registered (inbound messages after it are unknown to the state). */
  messageCursor: number;
  /** Pending message ids whose message.ingested is already in the ledger (see recovery.ts). */
  announced: string[];
}

/** Bot messages and consumed messages beyond this many are dropped from the message cache. */
const MAX_RETAINED_CACHE = 200;

export class SessionRuntime {
  agentState: AgentState = "stop";
  history: HistoryMessage[] = [];
  previousPlannerText = "";
  cycleCounter = 0;
  talkFrequencyAdjust = 1;
  readonly latency = new LatencyWindow();
  readonly registry: ToolRegistry;
  readonly host: SessionToolHost;
  /** The planner's last tool view (deferred pool, discovered), read by tool_search. */
  toolView: PlannerToolView | null = null;
  private readonly learner: SessionLearner;

  private cache: ChatMessageRecord[] = [];
  private processed = 0;
  private lastMessageAt = 0;
  private debounceNeeded = false;
  private forceContinue = false;
  private scheduled = false;
  private recheck: TimerHandle | null = null;
  private wait: { callId: string; deadline: number; timer: TimerHandle } | null = null;
  private triggers: TurnTrigger[] = [];
  private wakeLoop: (() => void) | null = null;
  private turnRunning = false;
  private stopped = false;
  /** Aborts sleeps (debounce, cooldown) when the runtime stops. */
  private readonly stopController = new AbortController();
  private loopDone: Promise<void> | null = null;
  private readonly loop: ReasoningLoop;
  private persistTimer: TimerHandle | null = null;
  /** The newest state waiting to be written, and the writer working through them (one at a time). */
  private persistQueued: { state: RuntimeSnapshotState; ts: number } | null = null;
  private persisting: Promise<void> | null = null;
  /** Saves run one after another, so store positions follow registration order (recovery.ts). */
  private saveChain: Promise<unknown> = Promise.resolve();
  private messageCursor = 0;
  private announced = new Set<string>();
  /** When the current batch's oldest message arrived, for reply latency samples. */
  batchOldestArrival: number | null = null;

  /** The in-flight planner request and the interrupt bookkeeping of 3.3. */
  readonly plannerFlight = { controller: null as AbortController | null, interruptRequested: false, consecutive: 0 };
  stage = { name: "空闲", detail: "", startedAt: 0, roundText: "" };

  constructor(
    readonly session: SessionRecord,
    readonly deps: EngineDeps,
  ) {
    this.host = new SessionToolHost(this);
    this.registry = new ToolRegistry({ toggles: deps.toggles, logger: deps.logger });
    this.registry.registerProvider(new BuiltinToolProvider(this.host));
    this.syncProviders();
    this.loop = new ReasoningLoop(this);
    this.learner = new SessionLearner(session.id, deps);
  }

  /**
   * Brings the session's registry in line with the shared providers (plugins, MCP), which come and
   * go while the process runs; the builtin provider stays first.
   */
  syncProviders(): void {
    const shared = this.deps.providers();
    const registered = this.registry.listProviders().filter((p) => p.providerType !== "builtin");
    if (registered.length === shared.length && registered.every((p, i) => p === shared[i])) return;
    for (const p of registered) this.registry.unregisterProvider(p.providerName);
    for (const p of shared) this.registry.registerProvider(p);
  }

  /** Messages trimmed out of the window feed jargon/memory/profile learning. */
  onHistoryTrimmed(removed: HistoryMessage[]): void {
    void this.learner.learnFrom(removed);
  }

  get isGroupChat(): boolean {
    return this.session.isGroupChat;
  }

  get maxContextSize(): number {
    const chat = this.deps.config.chat;
    return this.isGroupChat ? chat.maxContextSize : chat.maxPrivateContextSize;
  }

  start(): void {
    if (this.loopDone) return;
    this.deps.events.emit(this.session.id, "session.start", {
      sessionId: this.session.id,
      sessionName: this.session.name,
      isGroupChat: this.session.isGroupChat,
      groupId: this.session.groupId,
      userId: this.session.userId,
      platform: this.session.platform,
    });
    this.setStage("空闲", "");
    this.loopDone = this.runLoop();
    this.schedule();
  }

  /** Stops the loop: aborts an in-flight planner, cancels timers, closes the registry. */
  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopController.abort(new Error("runtime stopped"));
    this.recheck?.cancel();
    this.wait?.timer.cancel();
    this.persistTimer?.cancel();
    this.plannerFlight.controller?.abort();
    this.wakeLoop?.();
    await this.loopDone;
    // Saves already under way finish first: the last state's message cursor is then below them.
    await this.saveChain;
    await this.persistNow();
    // Shared providers (plugins, MCP) outlive a session: only the session's own ones are closed.
    for (const provider of this.deps.providers()) this.registry.unregisterProvider(provider.providerName);
    await this.registry.close();
    this.deps.events.emit(this.session.id, "session.stop", { reason });
  }

  /** Aborted when the runtime stops: cancels in-flight tool calls (MCP requests) of its turn. */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** No turn running or queued and no trigger re-check pending; an armed wait counts as idle. */
  isIdle(opts: { followWaits?: boolean } = {}): boolean {
    if (this.turnRunning || this.triggers.length || this.scheduled || this.recheck) return false;
    if (opts.followWaits && this.wait) return false;
    return true;
  }

  get lastActivityAt(): number {
    return Math.max(this.lastMessageAt, this.stage.startedAt);
  }

  // ---- messages and triggers -------------------------------------------------------------

  /**
   * A new chat message (engine.md 2, registerMessage). True: it is durable in the message store (if
   * the runtime stopped meanwhile, the session's next runtime recovers it from there). False: the
   * runtime had stopped already; nothing was saved.
   */
  async registerMessage(message: ChatMessageRecord): Promise<boolean> {
    if (this.stopped) return false;
    const saved = this.saveChain.then(() => this.deps.stores.messages.save(message));
    this.saveChain = saved.catch(() => undefined);
    const position = await saved;
    if (this.stopped) return true;
    this.messageCursor = Math.max(this.messageCursor, position);
    const now = this.deps.clock.now();
    this.lastMessageAt = now;
    const mentioned = message.mentionsBot ?? this.detectMention(message.text);
    const chat = this.deps.config.chat;
    if ((message.atBot && chat.atBotReply) || (mentioned && chat.mentionedBotReply)) this.forceContinue = true;
    this.cache.push({ ...message, mentionsBot: mentioned, ts: message.ts || now });
    this.pruneCache();
    if (this.agentState === "running") {
      this.debounceNeeded = true;
      this.maybeInterruptPlanner();
    }
    this.schedule();
    this.persistSoon();
    return true;
  }

  private detectMention(text: string): boolean {
    const bot = this.deps.config.bot;
    const lower = text.toLowerCase();
    return [bot.nickname, ...bot.aliases].some((name) => name && lower.includes(name.toLowerCase()));
  }

  private pruneCache(): void {
    const excess = this.processed - MAX_RETAINED_CACHE;
    if (excess > 0) {
      this.cache.splice(0, excess);
      this.processed -= excess;
    }
  }

  pendingMessages(): ChatMessageRecord[] {
    const seen = new Set<string>();
    const out: ChatMessageRecord[] = [];
    for (const m of this.cache.slice(this.processed)) {
      if (seen.has(m.messageId)) continue;
      seen.add(m.messageId);
      out.push(m);
    }
    return out;
  }

  /** Takes the pending messages (deduped by id) and starts the reply-latency clock. */
  collectPending(): ChatMessageRecord[] {
    const pending = this.pendingMessages();
    this.processed = this.cache.length;
    if (pending.length) this.batchOldestArrival = Math.min(...pending.map((m) => m.ts));
    return pending;
  }

  lastCachedMessage(): ChatMessageRecord | null {
    return this.cache.length ? this.cache[this.cache.length - 1] : null;
  }

  /** Queues a message turn when the threshold (or idle compensation, or force) allows. */
  schedule(): void {
    if (this.stopped || this.agentState === "wait" || this.scheduled) return;
    const pending = this.pendingMessages().length;
    if (!pending) return;
    // A turn a crash cut (recovery.ts) was already triggered: it runs again whatever the threshold.
    if (this.forceContinue || this.announced.size) return this.enqueueMessageTurn();
    const now = this.deps.clock.now();
    const talkValue = talkValueAt(this.deps.config.chat, this.isGroupChat, new Date(now));
    const threshold = triggerThreshold(talkValue, this.talkFrequencyAdjust);
    const decision = decideTrigger(pending, threshold, now - this.lastMessageAt, this.latency.average(now));
    if (decision.kind === "trigger") return this.enqueueMessageTurn();
    if (decision.kind === "recheck" && !this.recheck) {
      this.recheck = this.deps.clock.setTimer(decision.afterMs, () => {
        this.recheck = null;
        this.schedule();
      });
    }
  }

  private enqueueMessageTurn(): void {
    this.recheck?.cancel();
    this.recheck = null;
    this.scheduled = true;
    this.enqueue("message");
  }

  private enqueue(trigger: TurnTrigger): void {
    this.triggers.push(trigger);
    const wake = this.wakeLoop;
    this.wakeLoop = null;
    wake?.();
  }

  /** Consumes the one-shot force-continue flag. */
  takeForceContinue(): boolean {
    const forced = this.forceContinue;
    this.forceContinue = false;
    return forced;
  }

  /** Waits until messageDebounceSeconds after the last message, if messages came in during a run. */
  async debounce(): Promise<void> {
    if (!this.debounceNeeded) return;
    const quietMs = this.deps.config.chat.messageDebounceSeconds * 1000;
    for (;;) {
      const remaining = this.lastMessageAt + quietMs - this.deps.clock.now();
      if (remaining <= 0 || this.stopped) break;
      if (!(await this.pause(remaining))) break;
    }
    this.debounceNeeded = false;
  }

  /** Sleeps on the engine clock; false when the runtime stopped meanwhile. */
  async pause(ms: number): Promise<boolean> {
    try {
      await sleep(this.deps.clock, ms, this.stopController.signal);
      return true;
    } catch {
      return false;
    }
  }

  // ---- wait state ------------------------------------------------------------------------

  enterWait(callId: string, seconds: number): void {
    this.recheck?.cancel();
    this.recheck = null;
    this.wait?.timer.cancel();
    this.agentState = "wait";
    this.armWait(callId, this.deps.clock.now() + seconds * 1000);
  }

  private armWait(callId: string, deadline: number): void {
    const timer = this.deps.clock.setTimer(deadline - this.deps.clock.now(), () => {
      if (this.stopped || this.agentState !== "wait" || this.wait?.callId !== callId) return;
      this.enqueue("timeout");
    });
    this.wait = { callId, deadline, timer };
  }

  /** The gate's wait call that is still unanswered, if any; clears it. */
  takePendingWait(): string | null {
    const callId = this.wait?.callId ?? null;
    this.wait?.timer.cancel();
    this.wait = null;
    return callId;
  }

  get waitDeadline(): number | null {
    return this.wait?.deadline ?? null;
  }

  // ---- planner interrupts ----------------------------------------------------------------

  private maybeInterruptPlanner(): void {
    const flight = this.plannerFlight;
    const max = this.deps.config.chat.plannerInterruptMaxConsecutive;
    if (!flight.controller || flight.interruptRequested || max <= 0 || flight.consecutive >= max) return;
    flight.interruptRequested = true;
    flight.consecutive++;
    flight.controller.abort();
  }

  // ---- stage -----------------------------------------------------------------------------

  setStage(name: string, detail: string, roundText = this.stage.roundText): void {
    this.stage = { name, detail, startedAt: this.deps.clock.now(), roundText };
    this.deps.events.emit(this.session.id, "stage.status", {
      stage: name,
      detail,
      roundText,
      agentState: this.agentState,
      stageStartedAt: this.stage.startedAt,
    });
  }

  // ---- the loop --------------------------------------------------------------------------

  private async nextTriggers(): Promise<TurnTrigger[] | null> {
    while (!this.triggers.length) {
      if (this.stopped) return null;
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    }
    if (this.stopped) return null;
    const drained = this.triggers;
    this.triggers = [];
    return drained;
  }

  private async runLoop(): Promise<void> {
    for (;;) {
      const drained = await this.nextTriggers();
      if (!drained) return;
      const messageTriggered = drained.includes("message");
      const timeoutTriggered = drained.includes("timeout");
      if (this.agentState === "wait" && !timeoutTriggered) {
        // New messages never end a wait early; they stay pending for the timer's turn.
        this.scheduled = false;
        continue;
      }
      this.turnRunning = true;
      try {
        await this.loop.runTurn({ messageTriggered, timeoutTriggered });
      } catch (error) {
        this.deps.logger.error(`[engine] session ${this.session.id}: turn failed: ${describeError(error)}`);
        if (this.agentState === "running") this.agentState = "stop";
      } finally {
        this.turnRunning = false;
        if (messageTriggered) this.scheduled = false;
      }
      if (this.stopped) return;
      this.setStage(this.agentState === "wait" ? "等待消息" : "空闲", "");
      // A finished turn's state is taken at once and written when the ledger holds its events; the
      // next turn need not wait for that. Message arrivals are coalesced (and recoverable from the
      // message store, see recovery.ts).
      void this.persistNow();
      this.schedule();
    }
  }

  // ---- persistence (restart recovery) ----------------------------------------------------

  snapshot(): RuntimeSnapshotState {
    const pending = this.cache.slice(this.processed);
    return {
      version: 1,
      agentState: this.agentState,
      // A copy: the state is written later (once the ledger holds coveredSeq) and history changes meanwhile.
      history: structuredClone(this.history),
      pending,
      wait: this.wait ? { callId: this.wait.callId, deadline: this.wait.deadline } : null,
      previousPlannerText: this.previousPlannerText,
      latency: this.latency.toJSON(),
      cycleCounter: this.cycleCounter,
      forceContinue: this.forceContinue,
      talkFrequencyAdjust: this.talkFrequencyAdjust,
      coveredSeq: this.deps.events.seqOf(this.session.id),
      messageCursor: this.messageCursor,
      announced: pending.filter((m) => this.announced.has(m.messageId)).map((m) => m.messageId),
    };
  }

  /** Consumes the mark of a message whose message.ingested is already in the ledger (recovered). */
  takeAnnounced(messageId: string): boolean {
    return this.announced.delete(messageId);
  }

  /**
   * Restores a recovered state (recovery.ts) before start(); a turn that was running when the process
   * died runs again with its messages, which are not announced a second time.
   */
  restore(recovered: RecoveredSession): void {
    const { state } = recovered;
    if (state) {
      this.history = state.history;
      this.previousPlannerText = state.previousPlannerText;
      this.forceContinue = state.forceContinue;
      this.talkFrequencyAdjust = state.talkFrequencyAdjust;
      for (const s of state.latency) this.latency.add(s.at, s.latencyMs);
    }
    this.cache = [...recovered.pending];
    this.announced = new Set(recovered.announced);
    this.cycleCounter = recovered.cycleCounter;
    this.messageCursor = recovered.messageCursor;
    this.processed = 0;
    if (this.cache.length) this.lastMessageAt = this.cache[this.cache.length - 1].ts;
    if (state?.agentState === "wait" && state.wait) {
      this.agentState = "wait";
      this.armWait(state.wait.callId, state.wait.deadline);
    } else {
      this.agentState = "stop";
    }
  }

  persistSoon(): void {
    if (this.persistTimer || this.stopped) return;
    this.persistTimer = this.deps.clock.setTimer(200, () => {
      this.persistTimer = null;
      // Never mid-turn: a state taken then would hold the turn's messages in history with the turn
      // unfinished, and a crash would leave them without one. The turn's end saves the state anyway.
      if (!this.turnRunning) void this.persistNow();
    });
  }

  /**
   * Takes the state now and writes it once the ledger holds every event it covers, so a snapshot
   * never claims more than the ledger (recovery.ts relies on it). Writes run one at a time, newest
   * state wins; resolves when the state taken now (or a newer one) is written.
   */
  persistNow(): Promise<void> {
    this.persistQueued = { state: this.snapshot(), ts: this.deps.clock.now() };
    this.persisting ??= this.writeSnapshots();
    return this.persisting;
  }

  private async writeSnapshots(): Promise<void> {
    try {
      for (let next = this.persistQueued; next; next = this.persistQueued) {
        this.persistQueued = null;
        await this.deps.events.whenDurable(this.session.id, next.state.coveredSeq);
        try {
          await this.deps.stores.sessions.saveSnapshot({ sessionId: this.session.id, ...next });
          await this.deps.stores.sessions.touch(this.session.id, this.lastActivityAt || this.deps.clock.now());
        } catch (error) {
          this.deps.logger.warn(`[engine] session ${this.session.id}: snapshot not saved: ${describeError(error)}`);
        }
      }
    } finally {
      // Synchronously after the last check above: a persistNow() from now on starts a new writer.
      this.persisting = null;
    }
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

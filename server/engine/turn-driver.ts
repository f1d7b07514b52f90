// The turn driver of one chat session's runtime (runtime.ts): takes the session's messages and triggers,
// queues turns and runs them one after another in the reasoning loop, and is what that loop runs in (its
// LoopHost): the pending messages, the debounce and cooldown sleeps, the wait timer, the stage operators
// see and the planner interrupts. What the session keeps between turns (snapshots, learning, start and
// stop) is its lifecycle's (session-lifecycle.ts).
import type { AgentState, StageId } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../stores/messages";
import type { SessionRecord } from "../stores/sessions";
import type { ToolRegistry } from "../tools/registry";
import { sleep } from "../kernel/clock";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import type { SessionHistory } from "./history";
import { PlannerInterruptGuard } from "./interrupt-guard";
import { pendingNotice } from "./pending-notice";
import type { SnapshotParts } from "./persistence";
import type { PlannerToolView } from "./planner";
import { ReasoningLoop, type LoopHost, type TurnTrigger } from "./reasoning-loop";
import type { SessionScope } from "./session-scope";
import { syncSharedProviders } from "./tool-registry";
import { TriggerScheduler } from "./trigger-scheduler";
import type { LatencyWindow } from "./triggers";
import { CycleUsageMeter } from "./usage-meter";
import { WaitTimer } from "./wait-timer";

type TriggerKind = "message" | "timeout";

export interface StageState {
  name: StageId;
  detail: string;
  startedAt: number;
  roundText: string;
}

/** The scope's settings change between turns only (pinTurnSettings); every other part is fixed. */
type TurnScope = Omit<SessionScope, "deps" | "maxContextSize"> & { deps: EngineDeps; maxContextSize: number };

/** The driver's part of a snapshot: the loop's state, the scheduler's and the armed wait. */
type TurnParts = Pick<SnapshotParts, "loop" | "scheduler" | "wait">;

/** What the session's lifecycle hears of the turns. */
export interface TurnListener {
  /** Messages trimmed out of the history window (they feed learning). */
  historyTrimmed(removed: HistoryMessage[]): void;
  /** A turn ended and its stage is set; the next one is not queued yet. */
  turnEnded(): void;
}

export class TurnDriver implements LoopHost {
  readonly scope: TurnScope;
  readonly interrupts: PlannerInterruptGuard;
  private readonly scheduler: TriggerScheduler;
  private readonly waitTimer: WaitTimer;
  private readonly loop: ReasoningLoop;

  private scheduled = false;
  private triggers: TriggerKind[] = [];
  private wakeLoop: (() => void) | null = null;
  private turnRunning = false;
  private halted = false;
  /** Aborts sleeps (debounce, cooldown), model calls and tool calls when the runtime stops. */
  private readonly stopController = new AbortController();
  private loopDone: Promise<void> | null = null;
  private currentStage: StageState = { name: "idle", detail: "", startedAt: 0, roundText: "" };

  constructor(
    private readonly session: SessionRecord,
    private readonly deps: EngineDeps,
    parts: { registry: ToolRegistry; history: SessionHistory },
    private readonly listener: TurnListener,
  ) {
    this.scope = {
      session,
      deps,
      history: parts.history,
      registry: parts.registry,
      maxContextSize: this.contextSizeOf(deps),
      stopSignal: this.stopController.signal,
      usage: new CycleUsageMeter(() => deps.config.models.prices),
    };
    this.scheduler = new TriggerScheduler(deps, session.isGroupChat, () => this.schedule());
    this.waitTimer = new WaitTimer(deps.clock, () => {
      if (!this.halted && this.loop.state === "wait") this.enqueue("timeout");
    });
    this.interrupts = new PlannerInterruptGuard(() => deps.config.chat.plannerInterruptMaxConsecutive);
    this.loop = new ReasoningLoop(this);
  }

  // ---- what the reasoning loop runs in (LoopHost) ------------------------------------------

  stopped(): boolean {
    return this.halted;
  }

  collectPending(): ChatMessageRecord[] {
    return this.scheduler.collect();
  }

  pendingCount(): number {
    return this.scheduler.pending().length;
  }

  lastMessage(): ChatMessageRecord | null {
    return this.scheduler.lastMessage();
  }

  takeForceContinue(): boolean {
    return this.scheduler.takeForceContinue();
  }

  takeAnnounced(messageId: string): boolean {
    return this.scheduler.takeAnnounced(messageId);
  }

  debounce(): Promise<void> {
    return this.scheduler.debounce((ms) => this.pause(ms));
  }

  /** Sleeps on the engine clock; false when the runtime stopped meanwhile. */
  async pause(ms: number): Promise<boolean> {
    if (this.halted) return false;
    try {
      await sleep(this.deps.clock, ms, this.stopController.signal);
      return true;
    } catch {
      return false;
    }
  }

  armWait(callId: string, seconds: number): void {
    this.scheduler.cancelRecheck();
    this.waitTimer.arm(callId, this.deps.clock.now() + seconds * 1000);
  }

  takeWait(): string | null {
    return this.waitTimer.take();
  }

  setStage(name: StageId, detail = ""): void {
    this.currentStage = { name, detail, startedAt: this.deps.clock.now(), roundText: this.currentStage.roundText };
    this.deps.events.emit(this.session.id, "stage.status", {
      stage: name,
      detail,
      roundText: this.currentStage.roundText,
      agentState: this.loop.state,
      stageStartedAt: this.currentStage.startedAt,
    });
    // A turn ended, its cooldown began or a wait was armed: messages still pending now wait for
    // another reason than the one they were announced with.
    if (name === "idle" || name === "cooldown" || name === "waiting") {
      for (const message of this.scheduler.pending()) this.announcePending(message, false);
    }
  }

  setRoundText(roundText: string): void {
    this.currentStage = { ...this.currentStage, roundText };
  }

  /**
   * Brings the session's registry in line with the shared providers (plugins, MCP), which come and
   * go while the process runs; the builtin provider stays first.
   */
  syncProviders(): void {
    syncSharedProviders(this.scope.registry, this.deps.providers());
  }

  historyTrimmed(removed: HistoryMessage[]): void {
    this.listener.historyTrimmed(removed);
  }

  // ---- what the runtime reads ---------------------------------------------------------------

  get state(): AgentState {
    return this.loop.state;
  }

  get cycles(): number {
    return this.loop.cycles;
  }

  get stage(): Readonly<StageState> {
    return this.currentStage;
  }

  /** Reply-latency samples of idle compensation. */
  get latency(): LatencyWindow {
    return this.scheduler.latency;
  }

  get waitDeadline(): number | null {
    return this.waitTimer.current?.deadline ?? null;
  }

  get lastActivityAt(): number {
    return Math.max(this.scheduler.lastMessageTime, this.currentStage.startedAt);
  }

  /** A turn is running now. */
  get running(): boolean {
    return this.turnRunning;
  }

  /** The planner's tool view of the last round (what the builtin tools show the model). */
  get toolView(): PlannerToolView | null {
    return this.loop.planner.toolView;
  }

  /** The bot replied at `at` (idle compensation measures reply latency from the messages before it). */
  replySent(at: number): void {
    this.scheduler.replySent(at);
  }

  pending(): ChatMessageRecord[] {
    return this.scheduler.pending();
  }

  /** No turn running or queued and no trigger re-check pending; an armed wait counts as idle. */
  isIdle(opts: { followWaits?: boolean } = {}): boolean {
    if (this.turnRunning || this.triggers.length || this.scheduled || this.scheduler.rechecking) return false;
    if (opts.followWaits && this.waitTimer.current) return false;
    return true;
  }

  // ---- messages and triggers -------------------------------------------------------------

  /**
   * A new chat message, saved at store `position`: pending until a turn takes it, announced, and a turn
   * queued when the trigger allows. False when the scheduler already has it (or had it).
   */
  takeMessage(message: ChatMessageRecord, position: number): boolean {
    if (!this.scheduler.accept(message, position)) return false;
    let interruptsPlanner = false;
    if (this.loop.state === "running") {
      this.scheduler.requireDebounce();
      interruptsPlanner = this.interrupts.interrupt();
    }
    this.announcePending(message, interruptsPlanner);
    this.schedule();
    return true;
  }

  /** A recalled message leaves the pending ones; true when it was pending. */
  drop(messageId: string): boolean {
    return this.scheduler.drop(messageId);
  }

  /**
   * message.pending: the message is shown at once, with the gate that holds it (pending-notice.ts);
   * announced again when that gate changes (setStage).
   */
  private announcePending(message: ChatMessageRecord, interruptsPlanner: boolean): void {
    const turnUnderway = this.turnRunning || this.scheduled;
    this.deps.events.emit(
      this.session.id,
      "message.pending",
      pendingNotice(message, {
        now: this.deps.clock.now(),
        agentState: this.loop.state,
        waitDeadline: this.waitDeadline,
        interruptsPlanner,
        cooldownUntil: this.loop.cooldownUntil,
        debounceUntil: turnUnderway ? this.scheduler.debounceDeadline() : null,
        trigger: this.scheduler.evaluate(),
      }),
    );
  }

  /** Queues a message turn when the threshold (or idle compensation, or force) allows. */
  private schedule(): void {
    if (this.halted || this.loop.state === "wait" || this.scheduled) return;
    if (!this.scheduler.due()) return;
    this.scheduler.cancelRecheck();
    this.scheduled = true;
    this.enqueue("message");
  }

  private enqueue(trigger: TriggerKind): void {
    this.triggers.push(trigger);
    const wake = this.wakeLoop;
    this.wakeLoop = null;
    wake?.();
  }

  // ---- the turn queue --------------------------------------------------------------------

  /** The loop has been started (run()). */
  get started(): boolean {
    return this.loopDone !== null;
  }

  /** Starts the turn queue, with a turn at once if pending messages call for one. */
  run(): void {
    this.setStage("idle", "");
    this.loopDone = this.runLoop();
    this.schedule();
  }

  /**
   * Stops taking turns: aborts every sleep, model call and tool call of the session with `reason`,
   * cancels the trigger re-check and the wait. The loop ends once woken (finished()).
   */
  halt(reason: Error): void {
    this.halted = true;
    this.stopController.abort(reason);
    this.scheduler.cancelRecheck();
    this.waitTimer.halt();
  }

  /** After halt(): wakes the loop and resolves once its turn (if one was running) ended. */
  async finished(): Promise<void> {
    this.wakeLoop?.();
    await this.loopDone;
  }

  private async nextTriggers(): Promise<TurnTrigger | null> {
    while (!this.triggers.length) {
      if (this.halted) return null;
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    }
    if (this.halted) return null;
    const drained = this.triggers;
    this.triggers = [];
    return { messageTriggered: drained.includes("message"), timeoutTriggered: drained.includes("timeout") };
  }

  /**
   * A turn runs on the settings it started with: settings changed live (server/settings) replace the
   * config's sections rather than editing them, so a shallow copy holds them still until the turn ends.
   */
  private pinTurnSettings(): void {
    const version = this.deps.settingsVersion?.() ?? 0;
    const deps: EngineDeps = {
      ...this.deps,
      config: { ...this.deps.config },
      // The model routes too: a task's model changed live applies from the next turn.
      model: this.deps.model.pinned?.() ?? this.deps.model,
      settingsVersion: () => version,
    };
    this.scope.deps = deps;
    this.scope.maxContextSize = this.contextSizeOf(deps);
  }

  /** Between turns (tools run by hand in the session) the scope reads the live settings. */
  private unpinTurnSettings(): void {
    this.scope.deps = this.deps;
    this.scope.maxContextSize = this.contextSizeOf(this.deps);
  }

  private contextSizeOf(deps: EngineDeps): number {
    const chat = deps.config.chat;
    return this.session.isGroupChat ? chat.maxContextSize : chat.maxPrivateContextSize;
  }

  private async runLoop(): Promise<void> {
    for (;;) {
      const trigger = await this.nextTriggers();
      if (!trigger) return;
      if (this.loop.state === "wait" && !trigger.timeoutTriggered) {
        // New messages never end a wait early; they stay pending for the timer's turn.
        this.scheduled = false;
        continue;
      }
      this.turnRunning = true;
      this.pinTurnSettings();
      try {
        await this.loop.runTurn(trigger);
      } finally {
        this.unpinTurnSettings();
        this.turnRunning = false;
        if (trigger.messageTriggered) this.scheduled = false;
      }
      if (this.halted) return;
      this.setStage(this.loop.state === "wait" ? "waiting" : "idle", "");
      this.listener.turnEnded();
      this.schedule();
    }
  }

  // ---- snapshot parts --------------------------------------------------------------------

  /** The driver's part of a snapshot (composeSnapshot copies it). */
  saved(): TurnParts {
    return { loop: this.loop.saved(), scheduler: this.scheduler.state(), wait: this.waitTimer.current };
  }

  /**
   * Restores the driver's part of a recovered state before run(); a turn that was running when the
   * process died runs again with its messages, which are not announced a second time.
   */
  restore(parts: TurnParts): void {
    this.scheduler.restore(parts.scheduler);
    this.loop.restore(parts.loop, parts.wait !== null);
    if (parts.wait) this.waitTimer.arm(parts.wait.callId, parts.wait.deadline);
  }
}

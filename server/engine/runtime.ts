// One chat session's runtime (engine.md section 2): wires the parts of a session together and runs
// its turn queue. Messages and triggers live in the trigger scheduler, the wait in the wait timer,
// planner interrupts in the interrupt guard, snapshots in persistence, the history in its owner,
// and every agent-state transition in the reasoning loop.
import type { AgentState, StageId } from "../../lib/events/schemas";
import type { ToolExecutionContext } from "../../lib/tools/schemas";
import type { ChatMessageRecord, SessionRecord } from "../stores/types";
import type { SendOutcome } from "../tools/builtin/host";
import { BuiltinToolProvider } from "../tools/builtin/provider";
import { ToolRegistry } from "../tools/registry";
import { sleep, type TimerHandle } from "../kernel/clock";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { SessionHistory } from "./history";
import { PlannerInterruptGuard } from "./interrupt-guard";
import { pendingNotice } from "./pending-notice";
import { SessionLearner } from "./learning";
import {
  composeSnapshot,
  restoredParts,
  SnapshotWriter,
  type RecoveredSession,
  type RuntimeSnapshotState,
} from "./persistence";
import { ReasoningLoop, type LoopHost, type TurnTrigger } from "./reasoning-loop";
import { SessionToolHost } from "./session-host";
import { syncSharedProviders } from "./tool-registry";
import { executionContext, newUid, type SessionScope } from "./session-scope";
import { CycleUsageMeter } from "./usage-meter";
import { TriggerScheduler } from "./trigger-scheduler";
import type { LatencyWindow } from "./triggers";
import { WaitTimer } from "./wait-timer";

type TriggerKind = "message" | "timeout";

/** What a session is doing, as operators see it (HeartflowManager.status). */
export interface RuntimeStatus {
  agentState: AgentState;
  stage: StageId;
  stageDetail: string;
  roundText: string;
  lastActivityAt: number;
  cycleCount: number;
  pendingMessages: number;
  waitDeadline: number | null;
}

export interface StageState {
  name: StageId;
  detail: string;
  startedAt: number;
  roundText: string;
}

/** The scope's settings change between turns only (pinTurnSettings); every other part is fixed. */
type TurnScope = Omit<SessionScope, "deps" | "maxContextSize"> & { deps: EngineDeps; maxContextSize: number };

export class SessionRuntime {
  readonly registry: ToolRegistry;
  private readonly log = new SessionHistory();
  private readonly scope: TurnScope;
  private readonly scheduler: TriggerScheduler;
  private readonly waitTimer: WaitTimer;
  private readonly interrupts: PlannerInterruptGuard;
  private readonly persistence: SnapshotWriter;
  private readonly learner: SessionLearner;
  /** Learning over a quiet session's unlearned chat (chat.learningIdleSeconds after a turn). */
  private idleLearning: TimerHandle | null = null;
  private readonly loop: ReasoningLoop;
  private readonly host: SessionToolHost;

  private scheduled = false;
  private triggers: TriggerKind[] = [];
  private wakeLoop: (() => void) | null = null;
  private turnRunning = false;
  private stopped = false;
  /** Aborts sleeps (debounce, cooldown), model calls and tool calls when the runtime stops. */
  private readonly stopController = new AbortController();
  private loopDone: Promise<void> | null = null;
  /** Saves run one after another, so store positions follow registration order (recovery.ts). */
  private saveChain: Promise<unknown> = Promise.resolve();
  private currentStage: StageState = { name: "idle", detail: "", startedAt: 0, roundText: "" };

  constructor(
    readonly session: SessionRecord,
    private readonly deps: EngineDeps,
  ) {
    this.registry = new ToolRegistry({ toggles: deps.toggles, logger: deps.logger });
    this.scope = {
      session,
      deps,
      history: this.log,
      registry: this.registry,
      maxContextSize: this.contextSizeOf(deps),
      stopSignal: this.stopController.signal,
      usage: new CycleUsageMeter(() => deps.config.models.prices),
    };
    this.scheduler = new TriggerScheduler(deps, session.isGroupChat, () => this.schedule());
    this.waitTimer = new WaitTimer(deps.clock, () => {
      if (!this.stopped && this.loop.state === "wait") this.enqueue("timeout");
    });
    this.interrupts = new PlannerInterruptGuard(() => deps.config.chat.plannerInterruptMaxConsecutive);
    this.learner = new SessionLearner(session.id, deps);
    this.loop = new ReasoningLoop(this.loopHost());
    this.persistence = new SnapshotWriter(
      session.id,
      deps,
      () => this.snapshot(),
      () => this.lastActivityAt,
      () => this.turnRunning,
    );
    this.host = new SessionToolHost(this.scope, {
      toolView: () => this.loop.planner.toolView,
      replySent: (at) => this.scheduler.replySent(at),
    });
    this.registry.registerProvider(new BuiltinToolProvider(this.host));
    this.syncProviders();
  }

  private loopHost(): LoopHost {
    return {
      scope: this.scope,
      interrupts: this.interrupts,
      stopped: () => this.stopped,
      collectPending: () => this.scheduler.collect(),
      pendingCount: () => this.scheduler.pending().length,
      lastMessage: () => this.scheduler.lastMessage(),
      takeForceContinue: () => this.scheduler.takeForceContinue(),
      takeAnnounced: (messageId) => this.scheduler.takeAnnounced(messageId),
      debounce: () => this.scheduler.debounce((ms) => this.pause(ms)),
      pause: (ms) => this.pause(ms),
      armWait: (callId, seconds) => {
        this.scheduler.cancelRecheck();
        this.waitTimer.arm(callId, this.deps.clock.now() + seconds * 1000);
      },
      takeWait: () => this.waitTimer.take(),
      setStage: (stage, detail) => this.setStage(stage, detail ?? ""),
      setRoundText: (roundText) => void (this.currentStage = { ...this.currentStage, roundText }),
      syncProviders: () => this.syncProviders(),
      historyTrimmed: (removed) => this.onHistoryTrimmed(removed),
    };
  }

  /**
   * Brings the session's registry in line with the shared providers (plugins, MCP), which come and
   * go while the process runs; the builtin provider stays first.
   */
  private syncProviders(): void {
    syncSharedProviders(this.registry, this.deps.providers());
  }

  /** Messages trimmed out of the window feed jargon/memory/profile learning. */
  private onHistoryTrimmed(removed: HistoryMessage[]): void {
    void this.learner.learnTrimmed(removed);
  }

  /**
   * After a turn: learn from the window's unlearned chat once a batch is full, or when the session
   * stays quiet for chat.learningIdleSeconds (a short chat teaches something too).
   */
  private considerLearning(): void {
    void this.learner.learnFromWindow(this.log.all(), { idle: false });
    this.idleLearning?.cancel();
    this.idleLearning = null;
    const idleSeconds = this.deps.config.chat.learningIdleSeconds;
    if (idleSeconds <= 0 || !this.learner.unlearned(this.log.all()).length) return;
    this.idleLearning = this.deps.clock.setTimer(idleSeconds * 1000, () => {
      this.idleLearning = null;
      if (this.stopped || this.turnRunning) return;
      void this.learner.learnFromWindow(this.log.all(), { idle: true });
      this.persistence.soon();
    });
  }

  /** The history window, oldest first (read-only). */
  get history(): readonly HistoryMessage[] {
    return this.log.all();
  }

  get agentState(): AgentState {
    return this.loop.state;
  }

  get cycleCounter(): number {
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

  status(): RuntimeStatus {
    return {
      agentState: this.agentState,
      stage: this.currentStage.name,
      stageDetail: this.currentStage.detail,
      roundText: this.currentStage.roundText,
      lastActivityAt: this.lastActivityAt,
      cycleCount: this.cycleCounter,
      pendingMessages: this.pendingMessages().length,
      waitDeadline: this.waitDeadline,
    };
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
    this.setStage("idle", "");
    this.loopDone = this.runLoop();
    this.schedule();
  }

  /**
   * Stops the loop: aborts every in-flight model call (gate, planner, replyer, emoji, learning) and
   * tool call, cancels timers, saves the state and closes the session's own providers.
   */
  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopController.abort(new Error("runtime stopped"));
    this.scheduler.cancelRecheck();
    this.idleLearning?.cancel();
    this.waitTimer.halt();
    this.persistence.close();
    this.wakeLoop?.();
    await this.loopDone;
    await this.learner.stop();
    // Saves already under way finish first: the last state's message cursor is then at or above them.
    await this.saveChain;
    await this.persistence.now();
    // Shared providers (plugins, MCP) outlive a session: only the session's own ones are closed.
    for (const provider of this.deps.providers()) this.registry.unregisterProvider(provider.providerName);
    await this.registry.close();
    this.deps.events.emit(this.session.id, "session.stop", { reason });
  }

  /**
   * Stops the loop like stop() but writes nothing: no snapshot, no session.stop. For a session whose
   * lease another node holds now (cluster): its state there comes from the last snapshot and the ledger.
   */
  async discard(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.persistence.discard();
    this.stopController.abort(new Error("runtime discarded: the session moved to another node"));
    this.scheduler.cancelRecheck();
    this.idleLearning?.cancel();
    this.waitTimer.halt();
    this.wakeLoop?.();
    await this.loopDone;
    await this.learner.stop();
    for (const provider of this.deps.providers()) this.registry.unregisterProvider(provider.providerName);
    await this.registry.close();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** What a tool run by an operator sees: this session's context, aborted when the runtime stops. */
  operatorToolContext(metadata: Record<string, unknown>): ToolExecutionContext {
    return executionContext(this.scope, "", metadata);
  }

  /** No turn running or queued and no trigger re-check pending; an armed wait counts as idle. */
  isIdle(opts: { followWaits?: boolean } = {}): boolean {
    if (this.turnRunning || this.triggers.length || this.scheduled || this.scheduler.rechecking) return false;
    if (opts.followWaits && this.waitTimer.current) return false;
    return true;
  }

  private get lastActivityAt(): number {
    return Math.max(this.scheduler.lastMessageTime, this.currentStage.startedAt);
  }

  // ---- messages and triggers -------------------------------------------------------------

  /**
   * A new chat message (engine.md 2, registerMessage). True: it is durable in the message store and
   * this runtime took it. False: the runtime stopped before taking it; the caller hands it to the
   * session's next runtime, which saves it again. (That runtime may have restored from the store before
   * this save committed, so "it recovers it from there" would lose an acknowledged message.)
   */
  async registerMessage(message: ChatMessageRecord): Promise<boolean> {
    if (this.stopped) return false;
    const saved = this.saveChain.then(() => this.deps.stores.messages.save(message));
    this.saveChain = saved.catch(() => undefined);
    const { position, recalled } = await saved;
    if (this.stopped) return false;
    // Recalled while it went from a runtime that stopped to this one (the store kept the recall): the
    // recall found no runtime holding it, so it must not enter the context here.
    if (recalled) return true;
    if (!this.scheduler.accept(message, position)) return true;
    // New chat: the quiet stretch idle learning waits for has not come yet.
    this.idleLearning?.cancel();
    this.idleLearning = null;
    let interruptsPlanner = false;
    if (this.loop.state === "running") {
      this.scheduler.requireDebounce();
      interruptsPlanner = this.interrupts.interrupt();
    }
    this.announcePending(message, interruptsPlanner);
    this.schedule();
    this.persistence.soon();
    return true;
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

  /**
   * A message recalled on its platform leaves the context: out of the history window and of the
   * pending messages. True when the runtime held it.
   */
  recall(messageId: string): boolean {
    if (this.stopped) return false;
    const inHistory = this.log.removeChatMessage(messageId);
    const wasPending = this.scheduler.drop(messageId);
    if (inHistory || wasPending) this.persistence.soon();
    return inHistory || wasPending;
  }

  /** A note for the models (a member joined or left): in the history, counting toward nothing. */
  note(content: string): void {
    if (this.stopped) return;
    this.log.append({
      kind: "reference",
      uid: newUid(),
      ts: this.deps.clock.now(),
      referenceType: "custom",
      content,
    });
    this.persistence.soon();
  }

  /** An operator's message as the bot, through the same delivery and records as the bot's own. */
  sendAsOperator(req: { text: string; replyTo: string | null }): Promise<SendOutcome> {
    if (this.stopped) return Promise.resolve({ delivered: false, error: "session runtime stopped" });
    return this.host.deliverMessage(
      { sessionId: this.session.id, text: req.text, replyTo: req.replyTo, kind: "text" },
      { countsAsReply: false },
    );
  }

  pendingMessages(): ChatMessageRecord[] {
    return this.scheduler.pending();
  }

  /** Queues a message turn when the threshold (or idle compensation, or force) allows. */
  private schedule(): void {
    if (this.stopped || this.loop.state === "wait" || this.scheduled) return;
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

  /** Sleeps on the engine clock; false when the runtime stopped meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    if (this.stopped) return false;
    try {
      await sleep(this.deps.clock, ms, this.stopController.signal);
      return true;
    } catch {
      return false;
    }
  }

  // ---- stage -----------------------------------------------------------------------------

  private setStage(name: StageId, detail: string): void {
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

  // ---- the turn queue --------------------------------------------------------------------

  private async nextTriggers(): Promise<TurnTrigger | null> {
    while (!this.triggers.length) {
      if (this.stopped) return null;
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    }
    if (this.stopped) return null;
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
      if (this.stopped) return;
      this.setStage(this.loop.state === "wait" ? "waiting" : "idle", "");
      this.considerLearning();
      // A finished turn's state is taken at once and written when the ledger holds its events; the
      // next turn need not wait for that. Message arrivals are coalesced (and recoverable from the
      // message store, see recovery.ts).
      void this.persistence.now();
      this.schedule();
    }
  }

  // ---- persistence (restart recovery) ----------------------------------------------------

  snapshot(): RuntimeSnapshotState {
    return composeSnapshot({
      loop: this.loop.saved(),
      scheduler: this.scheduler.state(),
      history: this.log.toJSON(),
      wait: this.waitTimer.current,
      learned: this.learner.learnedIds(),
      coveredSeq: this.deps.events.seqOf(this.session.id),
    });
  }

  /** Takes the state now; resolves once it (or a newer one) is written, after the ledger holds its events. */
  persistNow(): Promise<void> {
    return this.persistence.now();
  }

  /**
   * Restores a recovered state (recovery.ts) before start(); a turn that was running when the process
   * died runs again with its messages, which are not announced a second time.
   */
  restore(recovered: RecoveredSession): void {
    const parts = restoredParts(recovered);
    this.log.reset(parts.history);
    this.scheduler.restore(parts.scheduler);
    this.loop.restore(parts.loop, parts.wait !== null);
    if (parts.wait) this.waitTimer.arm(parts.wait.callId, parts.wait.deadline);
    this.learner.restore(parts.learned);
  }
}

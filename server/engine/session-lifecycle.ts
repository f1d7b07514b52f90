// The lifecycle of one chat session's runtime (runtime.ts): its start and stop (or discard, when the
// session moved to another node), its restore from a recovered state, its snapshots (taken after each
// turn and coalesced after message arrivals, written once the ledger holds their events) with the message
// saves they must follow, and the learning that runs between turns. The turns themselves are the turn
// driver's (turn-driver.ts).
import type { ChatMessageRecord, SavedMessage } from "../stores/messages";
import type { SessionRecord } from "../stores/sessions";
import type { ToolRegistry } from "../tools/registry";
import type { TimerHandle } from "../kernel/clock";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import type { SessionHistory } from "./history";
import { SessionLearner } from "./learning";
import {
  composeSnapshot,
  restoredParts,
  SnapshotWriter,
  type RecoveredSession,
  type RuntimeSnapshotState,
} from "./persistence";
import type { TurnDriver, TurnListener } from "./turn-driver";

export class SessionLifecycle implements TurnListener {
  private readonly persistence: SnapshotWriter;
  private readonly learner: SessionLearner;
  /** Learning over a quiet session's unlearned chat (chat.learningIdleSeconds after a turn). */
  private idleLearning: TimerHandle | null = null;
  /** Saves run one after another, so store positions follow registration order (recovery.ts). */
  private saveChain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: SessionRecord,
    private readonly deps: EngineDeps,
    private readonly driver: TurnDriver,
    private readonly parts: { registry: ToolRegistry; history: SessionHistory },
  ) {
    this.learner = new SessionLearner(session.id, deps);
    this.persistence = new SnapshotWriter(
      session.id,
      deps,
      () => this.snapshot(),
      () => driver.lastActivityAt,
      () => driver.running,
    );
  }

  start(): void {
    if (this.driver.started) return;
    this.deps.events.emit(this.session.id, "session.start", {
      sessionId: this.session.id,
      sessionName: this.session.name,
      isGroupChat: this.session.isGroupChat,
      groupId: this.session.groupId,
      userId: this.session.userId,
      platform: this.session.platform,
    });
    this.driver.run();
  }

  /**
   * Stops the loop: aborts every in-flight model call (gate, planner, replyer, emoji, learning) and
   * tool call, cancels timers, saves the state and closes the session's own providers.
   */
  async stop(reason: string): Promise<void> {
    if (this.driver.stopped()) return;
    this.driver.halt(new Error("runtime stopped"));
    this.idleLearning?.cancel();
    this.persistence.close();
    await this.driver.finished();
    await this.learner.stop();
    // Saves already under way finish first: the last state's message cursor is then at or above them.
    await this.saveChain;
    await this.persistence.now();
    await this.closeProviders();
    this.deps.events.emit(this.session.id, "session.stop", { reason });
  }

  /**
   * Stops the loop like stop() but writes nothing: no snapshot, no session.stop. For a session whose
   * lease another node holds now (cluster): its state there comes from the last snapshot and the ledger.
   */
  async discard(): Promise<void> {
    if (this.driver.stopped()) return;
    this.persistence.discard();
    this.driver.halt(new Error("runtime discarded: the session moved to another node"));
    this.idleLearning?.cancel();
    await this.driver.finished();
    await this.learner.stop();
    await this.closeProviders();
  }

  /** Shared providers (plugins, MCP) outlive a session: only the session's own ones are closed. */
  private async closeProviders(): Promise<void> {
    const { registry } = this.parts;
    for (const provider of this.deps.providers()) registry.unregisterProvider(provider.providerName);
    await registry.close();
  }

  /**
   * Saves a new chat message after the saves before it; resolves with its store position (and whether
   * the store holds it recalled).
   */
  saveMessage(message: ChatMessageRecord): Promise<SavedMessage> {
    const saved = this.saveChain.then(() => this.deps.stores.messages.save(message));
    this.saveChain = saved.catch(() => undefined);
    return saved;
  }

  /** New chat was taken: the quiet stretch idle learning waits for has not come yet. */
  chatArrived(): void {
    this.idleLearning?.cancel();
    this.idleLearning = null;
  }

  /** The state changed between turns: a snapshot is written soon (coalesced, never mid-turn). */
  saveSoon(): void {
    this.persistence.soon();
  }

  /** Messages trimmed out of the window feed jargon/memory/profile learning. */
  historyTrimmed(removed: HistoryMessage[]): void {
    void this.learner.learnTrimmed(removed);
  }

  turnEnded(): void {
    this.considerLearning();
    // A finished turn's state is taken at once and written when the ledger holds its events; the
    // next turn need not wait for that. Message arrivals are coalesced (and recoverable from the
    // message store, see recovery.ts).
    void this.persistence.now();
  }

  /**
   * After a turn: learn from the window's unlearned chat once a batch is full, or when the session
   * stays quiet for chat.learningIdleSeconds (a short chat teaches something too).
   */
  private considerLearning(): void {
    const { history } = this.parts;
    void this.learner.learnFromWindow(history.all(), { idle: false });
    this.idleLearning?.cancel();
    this.idleLearning = null;
    const idleSeconds = this.deps.config.chat.learningIdleSeconds;
    if (idleSeconds <= 0 || !this.learner.unlearned(history.all()).length) return;
    this.idleLearning = this.deps.clock.setTimer(idleSeconds * 1000, () => {
      this.idleLearning = null;
      if (this.driver.stopped() || this.driver.running) return;
      void this.learner.learnFromWindow(history.all(), { idle: true });
      this.persistence.soon();
    });
  }

  // ---- persistence (restart recovery) ----------------------------------------------------

  snapshot(): RuntimeSnapshotState {
    const turn = this.driver.saved();
    return composeSnapshot({
      loop: turn.loop,
      scheduler: turn.scheduler,
      history: this.parts.history.toJSON(),
      wait: turn.wait,
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
    this.parts.history.reset(parts.history);
    this.driver.restore(parts);
    this.learner.restore(parts.learned);
  }
}

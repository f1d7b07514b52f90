// One chat session's runtime (docs/engine-rules.md#session-runtime): the session's public face, which wires its parts
// together. Its turns (messages and triggers, the turn queue, the timers the reasoning loop sleeps on)
// are the turn driver's (turn-driver.ts); its start, stop, restore, snapshots and learning between
// turns its lifecycle's (session-lifecycle.ts). Pending messages live in the trigger scheduler, the wait
// in the wait timer, planner interrupts in the interrupt guard, the history in its owner, and every
// agent-state transition in the reasoning loop.
import type { AgentState, StageId } from "../../lib/events/schemas";
import type { ToolExecutionContext } from "../../lib/tools/schemas";
import type { ChatMessageRecord } from "../stores/messages";
import type { SessionRecord } from "../stores/sessions";
import type { SendOutcome } from "../tools/builtin/host";
import { BuiltinToolProvider } from "../tools/builtin/provider";
import { ToolRegistry } from "../tools/registry";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { SessionHistory } from "./history";
import type { RecoveredSession, RuntimeSnapshotState } from "./persistence";
import { SessionLifecycle } from "./session-lifecycle";
import { SessionToolHost } from "./session-host";
import { executionContext, newUid } from "./session-scope";
import type { LatencyWindow } from "./triggers";
import { TurnDriver, type StageState } from "./turn-driver";

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

export class SessionRuntime {
  readonly registry: ToolRegistry;
  private readonly log = new SessionHistory();
  private readonly driver: TurnDriver;
  private readonly lifecycle: SessionLifecycle;
  private readonly host: SessionToolHost;

  constructor(
    readonly session: SessionRecord,
    private readonly deps: EngineDeps,
  ) {
    this.registry = new ToolRegistry({ toggles: deps.toggles, logger: deps.logger });
    const parts = { registry: this.registry, history: this.log };
    this.driver = new TurnDriver(session, deps, parts, {
      historyTrimmed: (removed) => this.lifecycle.historyTrimmed(removed),
      turnEnded: () => this.lifecycle.turnEnded(),
    });
    this.lifecycle = new SessionLifecycle(session, deps, this.driver, parts);
    this.host = new SessionToolHost(this.driver.scope, {
      toolView: () => this.driver.toolView,
      replySent: (at) => this.driver.replySent(at),
    });
    this.registry.registerProvider(new BuiltinToolProvider(this.host));
    this.driver.syncProviders();
  }

  /** The history window, oldest first (read-only). */
  get history(): readonly HistoryMessage[] {
    return this.log.all();
  }

  get agentState(): AgentState {
    return this.driver.state;
  }

  get cycleCounter(): number {
    return this.driver.cycles;
  }

  get stage(): Readonly<StageState> {
    return this.driver.stage;
  }

  /** Reply-latency samples of idle compensation. */
  get latency(): LatencyWindow {
    return this.driver.latency;
  }

  get waitDeadline(): number | null {
    return this.driver.waitDeadline;
  }

  status(): RuntimeStatus {
    const stage = this.driver.stage;
    return {
      agentState: this.agentState,
      stage: stage.name,
      stageDetail: stage.detail,
      roundText: stage.roundText,
      lastActivityAt: this.driver.lastActivityAt,
      cycleCount: this.cycleCounter,
      pendingMessages: this.pendingMessages().length,
      waitDeadline: this.waitDeadline,
    };
  }

  start(): void {
    this.lifecycle.start();
  }

  /**
   * Stops the loop: aborts every in-flight model call (gate, planner, replyer, emoji, learning) and
   * tool call, cancels timers, saves the state and closes the session's own providers.
   */
  stop(reason: string): Promise<void> {
    return this.lifecycle.stop(reason);
  }

  /**
   * Stops the loop like stop() but writes nothing: no snapshot, no session.stop. For a session whose
   * lease another node holds now (cluster): its state there comes from the last snapshot and the ledger.
   */
  discard(): Promise<void> {
    return this.lifecycle.discard();
  }

  get isStopped(): boolean {
    return this.driver.stopped();
  }

  /** What a tool run by an operator sees: this session's context, aborted when the runtime stops. */
  operatorToolContext(metadata: Record<string, unknown>): ToolExecutionContext {
    return executionContext(this.driver.scope, "", metadata);
  }

  /** No turn running or queued and no trigger re-check pending; an armed wait counts as idle. */
  isIdle(opts: { followWaits?: boolean } = {}): boolean {
    return this.driver.isIdle(opts);
  }

  // ---- messages --------------------------------------------------------------------------

  /**
   * A new chat message (docs/engine-rules.md#message-arrival). True: it is durable in the message store and
   * this runtime took it. False: the runtime stopped before taking it; the caller hands it to the
   * session's next runtime, which saves it again. (That runtime may have restored from the store before
   * this save committed, so "it recovers it from there" would lose an acknowledged message.)
   */
  async registerMessage(message: ChatMessageRecord): Promise<boolean> {
    if (this.driver.stopped()) return false;
    const { position, recalled } = await this.lifecycle.saveMessage(message);
    if (this.driver.stopped()) return false;
    // Recalled while it went from a runtime that stopped to this one (the store kept the recall): the
    // recall found no runtime holding it, so it must not enter the context here.
    if (recalled) return true;
    if (!this.driver.takeMessage(message, position)) return true;
    this.lifecycle.chatArrived();
    this.lifecycle.saveSoon();
    return true;
  }

  /**
   * A message recalled on its platform leaves the context: out of the history window and of the
   * pending messages. True when the runtime held it.
   */
  recall(messageId: string): boolean {
    if (this.driver.stopped()) return false;
    const inHistory = this.log.removeChatMessage(messageId);
    const wasPending = this.driver.drop(messageId);
    if (inHistory || wasPending) this.lifecycle.saveSoon();
    return inHistory || wasPending;
  }

  /** A note for the models (a member joined or left): in the history, counting toward nothing. */
  note(content: string): void {
    if (this.driver.stopped()) return;
    this.log.append({
      kind: "reference",
      uid: newUid(),
      ts: this.deps.clock.now(),
      referenceType: "custom",
      content,
    });
    this.lifecycle.saveSoon();
  }

  /** An operator's message as the bot, through the same delivery and records as the bot's own. */
  sendAsOperator(req: { text: string; replyTo: string | null }): Promise<SendOutcome> {
    if (this.driver.stopped()) return Promise.resolve({ delivered: false, error: "session runtime stopped" });
    return this.host.deliverMessage(
      { sessionId: this.session.id, text: req.text, replyTo: req.replyTo, kind: "text" },
      { countsAsReply: false },
    );
  }

  pendingMessages(): ChatMessageRecord[] {
    return this.driver.pending();
  }

  // ---- persistence (restart recovery) ----------------------------------------------------

  snapshot(): RuntimeSnapshotState {
    return this.lifecycle.snapshot();
  }

  /** Takes the state now; resolves once it (or a newer one) is written, after the ledger holds its events. */
  persistNow(): Promise<void> {
    return this.lifecycle.persistNow();
  }

  /**
   * Restores a recovered state (recovery.ts) before start(); a turn that was running when the process
   * died runs again with its messages, which are not announced a second time.
   */
  restore(recovered: RecoveredSession): void {
    this.lifecycle.restore(recovered);
  }
}

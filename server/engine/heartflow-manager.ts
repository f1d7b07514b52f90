// Owns one runtime per chat session: created on first use (restoring a saved snapshot), kept in
// least-recently-used order, and capped: over the cap the least recently used idle runtimes are
// stopped first (their state is saved and comes back on the next message).
import { isRecordOnly, type SessionRecord } from "../stores/sessions";
import type { ChatMessageRecord } from "../stores/messages";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { describeError } from "./errors";
import { parseSnapshot, type RecoveredSession, type RuntimeSnapshotState } from "./persistence";
import { hasWork, recoverSession } from "./recovery";
import { SessionRuntime, type RuntimeStatus } from "./runtime";
import type { ToolExecutionContext } from "../../lib/tools/schemas";
import type { ToolRegistry } from "../tools/registry";
import { createSessionlessTools, type SessionlessTools } from "./tool-registry";

/** What an operator's send-as-bot came to (HeartflowManager.sendAsOperator). */
export type OperatorSendResult =
  | { delivered: true; messageId: string }
  | { delivered: false; reason: "not_delivered" | "unknown_reply_target"; error: string };

/** An archived session gets no runtime (no turn, no send) until it is unarchived. */
export class SessionArchivedError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is archived: unarchive it first`);
    this.name = "SessionArchivedError";
  }
}

/** An imported or derived session (isRecordOnly): a record of a run, never run here. */
export class RecordOnlySessionError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is a record of another run (imported, a re-run or a fork) and read-only`);
    this.name = "RecordOnlySessionError";
  }
}

/** A session another node runs (cluster): its requests go there (the caller may retry). */
export class SessionNotOwnedError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is run by another node of the cluster (or moving to one): retry`);
    this.name = "SessionNotOwnedError";
  }
}

/** Which sessions this process may run: on a cluster node, those whose lease it holds (server/cluster). */
export interface OwnershipGate {
  /** True when this node holds the session's lease, taken now when the session should be this node's. */
  claim(sessionId: string): Promise<boolean>;
  ownsLocally(sessionId: string): boolean;
}

export class HeartflowManager {
  /** Map order is recency: a touched runtime is re-inserted at the end. */
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly creating = new Map<string, Promise<SessionRuntime>>();
  /** Evicted runtimes still saving their last state: a new runtime of the session restores after it. */
  private readonly stopping = new Map<string, Promise<void>>();
  private closed = false;
  /** The registry for sessions without a running runtime (listing only), built on first use. */
  private detachedTools: SessionlessTools | null = null;
  /** Absent: one process runs every session. */
  private gate: OwnershipGate | null = null;

  constructor(private readonly deps: EngineDeps) {}

  /** From now on a runtime is created only for a session the gate lets this node own. */
  setOwnershipGate(gate: OwnershipGate): void {
    this.gate = gate;
  }

  get(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  list(): SessionRuntime[] {
    return [...this.runtimes.values()];
  }

  /** Ids of the sessions whose runtime is running. */
  runningSessionIds(): string[] {
    return [...this.runtimes.values()].filter((r) => !r.isStopped).map((r) => r.session.id);
  }

  /** A running session's runtime (not stopped or evicted). */
  private live(sessionId: string): SessionRuntime | null {
    const runtime = this.runtimes.get(sessionId);
    return runtime && !runtime.isStopped ? runtime : null;
  }

  /** What a running session is doing; null when its runtime is not running. */
  status(sessionId: string): RuntimeStatus | null {
    return this.live(sessionId)?.status() ?? null;
  }

  /** A running session's history window; null when its runtime is not running. */
  liveHistory(sessionId: string): readonly HistoryMessage[] | null {
    return this.live(sessionId)?.history ?? null;
  }

  /**
   * The tool registry a session gets: its running runtime's own, otherwise one built the same way
   * without a runtime (for listing; tools that speak in a chat refuse to run there).
   */
  toolRegistry(sessionId: string | null): ToolRegistry {
    const live = sessionId === null ? null : this.live(sessionId);
    if (live) return live.registry;
    this.detachedTools ??= this.sessionlessTools({ id: "_catalog", platform: "operator" });
    this.detachedTools.refresh();
    return this.detachedTools.registry;
  }

  /**
   * The registry and context for a tool an operator runs by hand in this session: its running
   * runtime's, the runtime created when absent (the session row exists already).
   */
  async operatorTools(
    session: SessionRecord,
    metadata: Record<string, unknown>,
  ): Promise<{ registry: ToolRegistry; context: ToolExecutionContext }> {
    let runtime = await this.getOrCreate(session);
    while (runtime.isStopped) runtime = await this.getOrCreate(session);
    return { registry: runtime.registry, context: runtime.operatorToolContext(metadata) };
  }

  /**
   * A tool registry outside any chat (the MCP gateway, tools run by hand): the engine's own tools and
   * providers, no runtime, no session row. `refresh()` it to take providers registered since.
   */
  sessionlessTools(scope: { id: string; platform: string }): SessionlessTools {
    return createSessionlessTools(this.deps, scope);
  }

  /** A session's last saved state (parsed; null when none or unreadable). */
  async savedSnapshot(sessionId: string): Promise<RuntimeSnapshotState | null> {
    const snapshot = await this.deps.stores.sessions.loadSnapshot(sessionId);
    return parseSnapshot(sessionId, snapshot?.state, this.deps.logger);
  }

  /** The runtime of a session, created (and restored from its snapshot) when absent. */
  async getOrCreate(session: SessionRecord): Promise<SessionRuntime> {
    if (this.closed) throw new Error("engine is shutting down");
    // An imported or derived session is a record of another run: its events are history, never resumed.
    if (isRecordOnly(session)) throw new RecordOnlySessionError(session.id);
    const existing = this.runtimes.get(session.id);
    if (existing) {
      this.touch(session.id, existing);
      return existing;
    }
    const pending = this.creating.get(session.id);
    if (pending) return pending;
    const creation = this.create(session).finally(() => this.creating.delete(session.id));
    this.creating.set(session.id, creation);
    return creation;
  }

  private async create(session: SessionRecord): Promise<SessionRuntime> {
    const { stores } = this.deps;
    await this.stopping.get(session.id);
    if (this.gate && !(await this.gate.claim(session.id))) throw new SessionNotOwnedError(session.id);
    if ((await stores.sessions.archivedAt(session.id)) !== null) throw new SessionArchivedError(session.id);
    const stored = await stores.sessions.get(session.id);
    // The caller's record may be a new one for an id that names such a record already.
    if (stored && isRecordOnly(stored)) throw new RecordOnlySessionError(session.id);
    if (!stored) await stores.sessions.upsert(session);
    const runtime = new SessionRuntime(stored ?? session, this.deps);
    if (stored) runtime.restore(await this.savedState(session.id));
    this.runtimes.set(session.id, runtime);
    runtime.start();
    await this.enforceCap(session.id);
    return runtime;
  }

  /**
   * What a session's next runtime starts from: its last snapshot reconciled with the ledger and the
   * message store (recovery.ts), so a crash at any moment loses no acknowledged message.
   */
  private savedState(sessionId: string): Promise<RecoveredSession> {
    return recoverSession(sessionId, this.deps);
  }

  /** Brings back every stored session with work left (pending messages, an armed wait) after a restart. */
  async restoreAll(): Promise<number> {
    let restored = 0;
    for (const session of await this.deps.stores.sessions.list()) {
      if ((await this.deps.stores.sessions.archivedAt(session.id)) !== null) continue;
      if (isRecordOnly(session)) continue;
      if (!hasWork(await this.savedState(session.id))) continue;
      try {
        await this.getOrCreate(session);
      } catch (error) {
        // Cluster: another node runs it (or should: it takes it over itself).
        if (error instanceof SessionNotOwnedError) continue;
        throw error;
      }
      restored++;
    }
    return restored;
  }

  /**
   * Brings one session back when it has work left (a cluster node taking over a session whose node
   * died); true when its runtime runs now.
   */
  async restoreIfWork(sessionId: string): Promise<boolean> {
    if (this.live(sessionId)) return true;
    const session = await this.deps.stores.sessions.get(sessionId);
    if (!session || isRecordOnly(session) || (await this.deps.stores.sessions.archivedAt(sessionId)) !== null)
      return false;
    if (!hasWork(await this.savedState(sessionId))) return false;
    await this.getOrCreate(session);
    return true;
  }

  /** No runtime, or one with no turn running or queued (a session may move to another node then). */
  isIdle(sessionId: string): boolean {
    if (this.creating.has(sessionId)) return false;
    const runtime = this.runtimes.get(sessionId);
    return !runtime || runtime.isStopped || runtime.isIdle();
  }

  async registerMessage(session: SessionRecord, message: ChatMessageRecord): Promise<SessionRuntime> {
    for (;;) {
      const runtime = await this.getOrCreate(session);
      // False: stopped (evicted, moved, shut down) before it took the message; the next runtime takes it.
      if (await runtime.registerMessage(message)) {
        // Lost meanwhile (cluster): the new owner may have restored before the save; the caller retries there.
        if (this.gate && !this.gate.ownsLocally(session.id)) throw new SessionNotOwnedError(session.id);
        return runtime;
      }
    }
  }

  /**
   * A message recalled on its platform: marked in the message store (still shown), dropped from the
   * running session's context and pending messages, and emitted as message.recalled. A snapshot
   * restored later leaves it out too (recovery.ts). False when the message is unknown or was
   * recalled already.
   */
  async recallMessage(sessionId: string, messageId: string): Promise<boolean> {
    if (!(await this.deps.stores.messages.markRecalled(sessionId, messageId))) return false;
    // A runtime being created restores from the store, possibly before the mark: drop it there too.
    await this.creating.get(sessionId)?.catch(() => undefined);
    this.live(sessionId)?.recall(messageId);
    this.deps.events.emit(sessionId, "message.recalled", { messageId });
    return true;
  }

  /**
   * A note for the session's models (e.g. "[Alice joined the group]"): appended to its history as a
   * reference that counts toward nothing and starts no turn. The runtime is created when absent.
   */
  async noteContext(session: SessionRecord, text: string): Promise<void> {
    for (;;) {
      const runtime = await this.getOrCreate(session);
      // Stopped: evicted between the lookup and the call; the session's next runtime takes it.
      if (!runtime.isStopped) return runtime.note(text);
    }
  }

  /**
   * An operator speaks as the bot into the session's chat: delivered through the same outbound path
   * and recorded like the bot's own message (message.sent, or message.send_failed), and audited as
   * operator.action "message.send".
   */
  async sendAsOperator(
    session: SessionRecord,
    req: { text: string; replyTo?: string | null },
    actor: string,
  ): Promise<OperatorSendResult> {
    const replyTo = req.replyTo ?? null;
    if (replyTo !== null && !(await this.deps.stores.messages.get(session.id, replyTo))) {
      return { delivered: false, reason: "unknown_reply_target", error: `no message ${replyTo} in this session` };
    }
    let runtime = await this.getOrCreate(session);
    while (runtime.isStopped) runtime = await this.getOrCreate(session);
    const outcome = await runtime.sendAsOperator({ text: req.text, replyTo });
    const messageId = outcome.delivered ? outcome.message.messageId : undefined;
    this.deps.events.emit(session.id, "operator.action", {
      actor,
      action: "message.send",
      target: session.id,
      detail: {
        text: req.text,
        replyTo,
        delivered: outcome.delivered,
        ...(messageId !== undefined ? { messageId } : {}),
        ...(!outcome.delivered ? { error: outcome.error } : {}),
      },
    });
    if (outcome.delivered) return { delivered: true, messageId: outcome.message.messageId };
    return { delivered: false, reason: "not_delivered", error: outcome.error };
  }

  private touch(id: string, runtime: SessionRuntime): void {
    this.runtimes.delete(id);
    this.runtimes.set(id, runtime);
  }

  /** Stops least recently used idle runtimes over the cap; never `keep` (the one being created). */
  private async enforceCap(keep: string): Promise<void> {
    const max = this.deps.config.chat.maxRuntimes;
    if (this.runtimes.size <= max) return;
    for (const [id, runtime] of this.runtimes) {
      if (this.runtimes.size <= max) break;
      if (id === keep || !runtime.isIdle() || runtime.agentState === "wait") continue;
      this.runtimes.delete(id);
      const stopped = runtime
        .stop("evicted: runtime cap reached")
        .catch((e: unknown) => this.deps.logger.warn(`[heartflow] stopping ${id} failed: ${describeError(e)}`))
        .finally(() => this.stopping.delete(id));
      this.stopping.set(id, stopped);
      await stopped;
    }
    if (this.runtimes.size > max) {
      this.deps.logger.warn(`[heartflow] ${this.runtimes.size} runtimes over the cap of ${max}: none idle to stop`);
    }
  }

  /**
   * Stops a session's runtime (state saved, session.stop emitted) and drops it; a runtime being
   * created is awaited first. Call it after archiving, so no new runtime starts meanwhile.
   */
  async unload(sessionId: string, reason: string): Promise<void> {
    await this.creating.get(sessionId)?.catch(() => undefined);
    await this.stopping.get(sessionId);
    const runtime = this.runtimes.get(sessionId);
    if (!runtime) return;
    this.runtimes.delete(sessionId);
    await runtime.stop(reason);
  }

  /**
   * Drops a session's runtime writing nothing (no snapshot, no session.stop): another node holds its
   * lease now and restores it from the last snapshot and the ledger.
   */
  async discard(sessionId: string): Promise<void> {
    // Not waiting for one being created: its creation may be what asked (the gate's claim). One created
    // after the lease went has its first event refused by the ledger, which discards it in turn.
    const runtime = this.runtimes.get(sessionId);
    if (!runtime) return;
    this.runtimes.delete(sessionId);
    await runtime.discard();
  }

  async stopAll(reason: string): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.creating.values()]);
    const all = [...this.runtimes.values()];
    this.runtimes.clear();
    await Promise.all(all.map((r) => r.stop(reason)));
  }
}

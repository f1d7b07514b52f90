// Owns one runtime per chat session: created on first use (restoring a saved snapshot), kept in
// least-recently-used order, and capped: over the cap the least recently used idle runtimes are
// stopped first (their state is saved and comes back on the next message).
import type { AgentState } from "../../lib/events/schemas";
import type { ChatMessageRecord, SessionRecord } from "../stores/types";
import type { EngineDeps } from "./deps";
import { hasWork, recoverSession } from "./recovery";
import { describeError, SessionRuntime } from "./runtime";

/** What other rooms may know of a running session (they never read runtime fields). */
export interface RuntimeStatus {
  agentState: AgentState;
  stage: string;
  stageDetail: string;
  roundText: string;
  lastActivityAt: number;
  cycleCount: number;
  pendingMessages: number;
  waitDeadline: number | null;
}

export class HeartflowManager {
  /** Map order is recency: a touched runtime is re-inserted at the end. */
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly creating = new Map<string, Promise<SessionRuntime>>();
  /** Evicted runtimes still saving their last state: a new runtime of the session restores after it. */
  private readonly stopping = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly deps: EngineDeps) {}

  get(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  list(): SessionRuntime[] {
    return [...this.runtimes.values()];
  }

  /** The running session's status; null when it has no runtime or its runtime stopped. */
  status(sessionId: string): RuntimeStatus | null {
    const rt = this.runtimes.get(sessionId);
    if (!rt || rt.isStopped) return null;
    return {
      agentState: rt.agentState,
      stage: rt.stage.name,
      stageDetail: rt.stage.detail,
      roundText: rt.stage.roundText,
      lastActivityAt: rt.lastActivityAt,
      cycleCount: rt.cycleCounter,
      pendingMessages: rt.pendingMessages().length,
      waitDeadline: rt.waitDeadline,
    };
  }

  /** Ids of the sessions that have a runtime (running or not yet stopped). */
  liveSessionIds(): string[] {
    return [...this.runtimes.keys()];
  }

  /** The runtime of a session, created (and restored from its snapshot) when absent. */
  async getOrCreate(session: SessionRecord): Promise<SessionRuntime> {
    if (this.closed) throw new Error("engine is shutting down");
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
    const stored = await stores.sessions.get(session.id);
    if (!stored) await stores.sessions.upsert(session);
    const runtime = new SessionRuntime(stored ?? session, this.deps);
    if (stored) runtime.restore(await recoverSession(session.id, this.deps));
    this.runtimes.set(session.id, runtime);
    runtime.start();
    await this.enforceCap(session.id);
    return runtime;
  }

  /** Brings back every stored session with work left (pending messages, an armed wait) after a restart. */
  async restoreAll(): Promise<number> {
    let restored = 0;
    for (const session of await this.deps.stores.sessions.list()) {
      if (!hasWork(await recoverSession(session.id, this.deps))) continue;
      await this.getOrCreate(session);
      restored++;
    }
    return restored;
  }

  async registerMessage(session: SessionRecord, message: ChatMessageRecord): Promise<SessionRuntime> {
    for (;;) {
      const runtime = await this.getOrCreate(session);
      // False: evicted between the lookup and the call; the session's next runtime takes it.
      if (await runtime.registerMessage(message)) return runtime;
    }
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

  async stopAll(reason: string): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.creating.values()]);
    const all = [...this.runtimes.values()];
    this.runtimes.clear();
    await Promise.all(all.map((r) => r.stop(reason)));
  }
}

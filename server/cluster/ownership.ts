// Which node runs which session (SessionDirectory), and the HeartflowManager's gate (OwnershipGate): a
// session runs only where its lease is held. Every renewal tick this node
// - renews its leases; a lease lost (another node took it, or it lapsed while this node was silent) gets
//   its runtime discarded without any write (the ledger's fence refuses them anyway),
// - writes its heartbeat and reads which nodes are live,
// - hands the sessions whose rendezvous node is now another live one over between turns (runtime
//   idle: snapshot saved, lease released), so a node joining or leaving rebalances without cutting a turn,
// - takes over the expired leases whose rendezvous node it is: a dead node's sessions are acquired and
//   those with work left are restored from snapshot and ledger (the existing recovery).
// The last two run as their own pass after a tick (one at a time), so a long take-over never delays the
// next renewal of this node's own leases.
import { setTimeout as delay } from "node:timers/promises";
import type { HeartflowManager, OwnershipGate } from "../engine";
import type { Logger } from "../kernel/logger";
import type { MonitorBus } from "../monitor/bus";
import type { SessionLeases } from "./leases";
import type { ClusterNodes } from "./nodes";
import { rendezvousNode } from "./placement";
import type { ClusterIdentity } from "./types";
import type { SessionDirectory } from "../kernel/cluster";

export interface OwnershipDeps {
  identity: ClusterIdentity;
  leases: SessionLeases;
  nodes: ClusterNodes;
  bus: Pick<MonitorBus, "fence" | "resume" | "onFenced" | "seqOf" | "whenDurable">;
  manager: Pick<HeartflowManager, "discard" | "unload" | "isIdle" | "restoreIfWork">;
  logger: Logger;
  /** How often the tick runs (a third of the lease time). */
  renewEveryMs: number;
}

export class SessionOwnership implements SessionDirectory, OwnershipGate {
  private liveNodes: string[];
  /** Every known node's URL (MAISAKA_NODE_URL), as of the last tick. */
  private urls = new Map<string, string>();
  /** Sessions being handed over or dropped: neither run here nor acquired again meanwhile. */
  private readonly moving = new Set<string>();
  private readonly acquiring = new Map<string, Promise<boolean>>();
  /** Expired leases the take-over scan went over, by token (looked at again once the token changes). */
  private readonly scanned = new Map<string, bigint>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  /** Handoffs and take-overs, off the renewal path: restoring many sessions must not delay a renewal. */
  private rebalancing: Promise<void> | null = null;
  /** Runtimes of lost leases being dropped. */
  private dropping: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: OwnershipDeps) {
    this.liveNodes = [deps.identity.nodeId];
    this.unsubscribe = deps.bus.onFenced((ids) => {
      for (const id of ids) void this.lose(id, "the ledger refused its events");
    });
  }

  get nodeId(): string {
    return this.deps.identity.nodeId;
  }

  /** Joins the cluster, reads which nodes are live and starts the renewal tick. */
  async start(): Promise<void> {
    await this.deps.nodes.join();
    await this.refreshNodes();
    this.timer = setInterval(() => void this.beat(), this.deps.renewEveryMs);
    this.timer.unref();
  }

  ownsLocally(sessionId: string): boolean {
    return !this.moving.has(sessionId) && this.deps.leases.tokenOf(sessionId) !== null;
  }

  /** This node holds the lease it trusts (a runtime handing over still saves its last snapshot). */
  holdsLease(sessionId: string): boolean {
    return this.deps.leases.tokenOf(sessionId) !== null;
  }

  async claim(sessionId: string): Promise<boolean> {
    if (this.ownsLocally(sessionId)) return true;
    return (await this.ownerOf(sessionId)) === this.nodeId && this.ownsLocally(sessionId);
  }

  async ownerOf(sessionId: string): Promise<string> {
    if (this.ownsLocally(sessionId)) return this.nodeId;
    const row = await this.deps.leases.read(sessionId);
    if (row?.live && row.nodeId !== this.nodeId) return row.nodeId;
    const target = this.placement(sessionId);
    if (target !== this.nodeId || this.moving.has(sessionId) || this.closed) return target;
    if (await this.acquire(sessionId)) return this.nodeId;
    return (await this.deps.leases.read(sessionId))?.nodeId ?? target;
  }

  async ownerLost(sessionId: string, owner: string, signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted && !this.closed) {
      await delay(this.deps.renewEveryMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      // Postgres away: not known to be lost, looked at again next tick.
      const row = await this.deps.leases.read(sessionId).catch(() => undefined);
      if (row === null || (row && (!row.live || row.nodeId !== owner))) return true;
    }
    return false;
  }

  /** The live node a session belongs on (this one when no other is known). */
  placement(sessionId: string): string {
    return rendezvousNode(sessionId, this.liveNodes) ?? this.nodeId;
  }

  /** Where a node's HTTP server is reached (null when unknown: it never joined, or left). */
  urlOf(nodeId: string): string | null {
    return nodeId === this.nodeId ? this.deps.identity.url : (this.urls.get(nodeId) ?? null);
  }

  /** The nodes seen live at the last tick (this one included). */
  get live(): readonly string[] {
    return this.liveNodes;
  }

  /** One renewal tick and the rebalancing after it, awaited (the timer runs them; tests call it to step). */
  async tick(): Promise<void> {
    await this.beat();
    await this.dropping;
    await this.rebalancing;
  }

  /** Renewals, heartbeat and the live nodes, then a rebalancing pass unless one is still running. */
  private beat(): Promise<void> {
    this.ticking ??= this.renew()
      .then(() => {
        this.rebalancing ??= this.rebalance().finally(() => (this.rebalancing = null));
      })
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  /**
   * Stops the tick, gives every lease up and leaves the cluster. Call it after the engine stopped
   * (runtimes saved, events flushed), so the next owners restore the latest state.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe();
    await this.ticking;
    await this.rebalancing;
    for (const id of this.deps.leases.heldSessionIds()) {
      await this.deps.leases.release(id).catch((e: unknown) => this.warn(`releasing ${id}`, e));
    }
    await this.deps.nodes.leave().catch((e: unknown) => this.warn("leaving the cluster", e));
  }

  private async acquire(sessionId: string): Promise<boolean> {
    const pending = this.acquiring.get(sessionId);
    if (pending) return pending;
    const run = (async () => {
      // Held and trusted already (a take-over scan going on with a row it read before a request took the
      // lease): the session may run here, and resuming its stream would drop what it emits meanwhile.
      if (this.holdsLease(sessionId)) return true;
      // Held but no longer trusted (a late renewal): what runs here of it ran past its lease, so it is
      // dropped first and the session restarts from the ledger like on any other node.
      if (this.deps.leases.holds(sessionId) && !this.holdsLease(sessionId)) {
        await this.lose(sessionId, "it lapsed on this node");
      }
      const token = await this.deps.leases.acquire(sessionId);
      if (token === null) return false;
      // What another node wrote meanwhile is in the ledger: seq continues after it.
      await this.deps.bus.resume(sessionId);
      return true;
    })().finally(() => this.acquiring.delete(sessionId));
    this.acquiring.set(sessionId, run);
    return run;
  }

  /** A lease this node lost: nothing more of the session is written here, its runtime is dropped. */
  private async lose(sessionId: string, why: string): Promise<void> {
    if (this.moving.has(sessionId)) return;
    this.moving.add(sessionId);
    try {
      this.deps.bus.fence([sessionId]);
      // A stream this node never held (another node's session, a shared stream it emitted to) is no news.
      if (this.deps.leases.holds(sessionId)) {
        this.deps.logger.warn(`[cluster] session ${sessionId}: lease lost (${why}); its runtime stops here unsaved`);
      }
      await this.deps.manager.discard(sessionId);
      await this.deps.leases.release(sessionId);
    } catch (error) {
      this.warn(`dropping session ${sessionId}`, error);
    } finally {
      this.moving.delete(sessionId);
    }
  }

  private async renew(): Promise<void> {
    await this.step("renewing leases", async () => {
      const lost = await this.deps.leases.renewAll();
      // Not awaited: dropping a runtime must not hold up the heartbeat.
      if (lost.length) this.dropping = Promise.all(lost.map((id) => this.lose(id, "taken over or lapsed")));
    });
    await this.step("heartbeat", () => this.deps.nodes.heartbeat());
    await this.step("reading the nodes", () => this.refreshNodes());
  }

  private async rebalance(): Promise<void> {
    await this.step("handing sessions over", () => this.handOver());
    await this.step("taking sessions over", () => this.takeOver());
  }

  private async step(what: string, run: () => Promise<void>): Promise<void> {
    if (this.closed) return;
    try {
      await run();
    } catch (error) {
      this.warn(what, error);
    }
  }

  private async refreshNodes(): Promise<void> {
    const rows = await this.deps.nodes.list();
    this.urls = new Map(rows.map((n) => [n.id, n.url]));
    const live = rows.filter((n) => n.live).map((n) => n.id);
    if (!live.includes(this.nodeId)) live.push(this.nodeId);
    this.liveNodes = live;
  }

  /** Sessions whose rendezvous node is another live one move there once their runtime is idle. */
  private async handOver(): Promise<void> {
    for (const id of this.deps.leases.heldSessionIds()) {
      if (this.closed) return;
      const target = this.placement(id);
      if (target === this.nodeId || this.moving.has(id) || !this.holdsLease(id)) continue;
      if (!this.deps.manager.isIdle(id)) continue;
      this.moving.add(id);
      try {
        await this.deps.manager.unload(id, `moved to node ${target}`);
        // The last snapshot is written; session.stop must be in the ledger before the lease goes (it
        // rejects when the lease was lost meanwhile: the release then leaves the new owner's lease alone).
        await this.deps.bus.whenDurable(id, this.deps.bus.seqOf(id)).catch(() => undefined);
        await this.deps.leases.release(id);
      } finally {
        this.moving.delete(id);
      }
    }
  }

  /**
   * Expired leases whose rendezvous node this is: a lapsed one (its node died) is acquired; one with
   * work left (pending messages, an armed wait) gets its runtime back.
   */
  private async takeOver(): Promise<void> {
    for (const row of await this.deps.leases.readExpired()) {
      if (this.closed) return;
      const id = row.sessionId;
      if (this.scanned.get(id) === row.token || this.placement(id) !== this.nodeId || this.moving.has(id)) continue;
      this.scanned.set(id, row.token);
      try {
        if (row.lapsed && !(await this.acquire(id))) continue;
        await this.deps.manager.restoreIfWork(id);
      } catch (error) {
        // Looked at again next tick (Postgres down, say): else a lapsed lease stays untaken for good.
        this.scanned.delete(id);
        this.warn(`taking session ${id} over`, error);
      }
    }
  }

  private warn(what: string, error: unknown): void {
    this.deps.logger.warn(`[cluster] ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

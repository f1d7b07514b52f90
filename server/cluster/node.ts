// This process as a cluster node: its Postgres pool for the cluster tables, its leases and the fence the
// ledger runs (open(), before the database and the engine), then its membership (join(), once the engine
// exists and before any session runs): the HeartflowManager's gate and the renewal tick.
import type { ClusterStatus } from "../../lib/api/cluster";
import pg from "pg";
import { createPostgresDatabaseIfMissing } from "../db/migrate-postgres";
import type { HeartflowManager } from "../engine";
import type { Logger } from "../kernel/logger";
import type { MonitorBus } from "../monitor/bus";
import type { Stores } from "../stores/types";
import type { ClusterConfig } from "./config";
import { LeaseFence } from "./fence";
import { SessionLeases } from "./leases";
import { ClusterNodes } from "./nodes";
import { SessionOwnership } from "./ownership";
import { clusterStatus } from "./status";
import { ensureClusterTables } from "./tables";
import type { LedgerFence } from "../kernel/cluster";

export class ClusterMember {
  readonly fence: LedgerFence;
  private ownership: SessionOwnership | null = null;

  private constructor(
    readonly config: ClusterConfig,
    private readonly pool: pg.Pool,
    private readonly leases: SessionLeases,
    private readonly nodes: ClusterNodes,
  ) {
    this.fence = new LeaseFence(leases);
  }

  static async open(config: ClusterConfig, databaseUrl: string): Promise<ClusterMember> {
    // A fresh Postgres: made here like a single node's migration makes it (the tables come first).
    await createPostgresDatabaseIfMissing(databaseUrl);
    // Its own few connections: renewals must not queue behind the ledger's or the stores' work.
    // Every wait bounded by the lease time: a query or a connection stuck on a Postgres that went away
    // must fail, or the renewal tick would wait on it forever while the leases run out.
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 4,
      connectionTimeoutMillis: config.leaseTtlMs,
      query_timeout: config.leaseTtlMs,
    });
    // A lost connection is reported by the next query; an idle client's error must not crash the process.
    pool.on("error", () => undefined);
    try {
      await ensureClusterTables(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const { nodeId } = config.identity;
    return new ClusterMember(
      config,
      pool,
      new SessionLeases(pool, nodeId, config.leaseTtlMs),
      new ClusterNodes(pool, config.identity, config.leaseTtlMs),
    );
  }

  get nodeId(): string {
    return this.config.identity.nodeId;
  }

  /** Which node runs which session (null until join()). */
  get directory(): SessionOwnership | null {
    return this.ownership;
  }

  /**
   * The stores the engine gets: a snapshot is saved only while this node trusts the session's lease, so
   * a node resuming from a pause past its lease never overwrites the new owner's snapshot.
   */
  guardStores<S extends Stores>(stores: S): S {
    const leases = this.leases;
    const sessions = new Proxy(stores.sessions, {
      get(target, key, receiver) {
        if (key !== "saveSnapshot") return Reflect.get(target, key, receiver) as unknown;
        return async (snapshot: Parameters<Stores["sessions"]["saveSnapshot"]>[0]) => {
          if (leases.tokenOf(snapshot.sessionId) === null) {
            throw new Error(`session ${snapshot.sessionId} is not this node's any more: snapshot not saved`);
          }
          return target.saveSnapshot(snapshot);
        };
      },
    });
    return { ...stores, sessions };
  }

  /** Joins the cluster: from now on a runtime runs here only for a session whose lease this node holds. */
  async join(engine: { bus: MonitorBus; manager: HeartflowManager; logger: Logger }): Promise<SessionOwnership> {
    const ownership = new SessionOwnership({
      identity: this.config.identity,
      leases: this.leases,
      nodes: this.nodes,
      bus: engine.bus,
      manager: engine.manager,
      logger: engine.logger,
      renewEveryMs: this.config.renewEveryMs,
    });
    engine.manager.setOwnershipGate(ownership);
    await ownership.start();
    this.ownership = ownership;
    return ownership;
  }

  status(): Promise<ClusterStatus> {
    return clusterStatus({
      selfId: this.nodeId,
      ttlMs: this.config.leaseTtlMs,
      leases: this.leases,
      nodes: this.nodes,
      placesOn: this.ownership?.live ?? [],
    });
  }

  /** After the engine stopped (snapshots saved, events flushed): leases released, node gone, pool closed. */
  async close(): Promise<void> {
    await this.ownership?.close();
    await this.pool.end();
  }
}

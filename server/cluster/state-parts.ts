// A cluster node's parts for the state the nodes share (ClusterStateParts), opened from its config: a
// messenger for the state notices, advisory locks on their own few Postgres connections (a long
// retention sweep must not hold one the lease renewals need), and the node's session directory.
import pg from "pg";
import type { EngineLogger } from "../engine";
import { PgAdvisoryLocks } from "./advisory-lock";
import type { ClusterConfig } from "./config";
import { RedisMessenger } from "./messenger";
import type { ClusterStateParts } from "./shared-state";
import type { SessionDirectory } from "./types";

export interface OpenClusterState extends ClusterStateParts {
  /** After the server stopped: messenger and lock connections closed. */
  close(): Promise<void>;
}

export async function openClusterState(
  config: ClusterConfig,
  databaseUrl: string,
  /** The node's directory once it joined (null before: no session is this node's yet). */
  directory: () => Pick<SessionDirectory, "ownsLocally"> | null,
  logger: EngineLogger,
): Promise<OpenClusterState> {
  const messenger = await RedisMessenger.connect({ url: config.redisUrl, nodeId: config.identity.nodeId, logger });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A lost idle connection is reported by the next lock; its error event must not end the process.
  pool.on("error", () => undefined);
  return {
    messenger,
    once: new PgAdvisoryLocks(pool),
    sessions: { ownsLocally: (sessionId) => directory()?.ownsLocally(sessionId) ?? false },
    async close() {
      await messenger.close();
      await pool.end();
    },
  };
}

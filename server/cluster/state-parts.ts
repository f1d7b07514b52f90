// A cluster node's parts for the state the nodes share (ClusterStateParts), opened from its config: the
// node's one messenger for the state notices (a second one with the same node id would answer calls it
// has no handler for), advisory locks on their own few Postgres connections (a long
// retention sweep must not hold one the lease renewals need), and the node's session directory.
import pg from "pg";
import { PgAdvisoryLocks } from "./advisory-lock";
import type { ClusterStateParts } from "./shared-state";
import type { NodeMessenger, SessionDirectory } from "../kernel/cluster";

export interface OpenClusterState extends ClusterStateParts {
  /** After the server stopped: lock connections closed (the messenger is the node's, closed by it). */
  close(): Promise<void>;
}

export function openClusterState(
  databaseUrl: string,
  messenger: NodeMessenger,
  /** The node's directory once it joined (null before: no session is this node's yet). */
  directory: () => Pick<SessionDirectory, "ownsLocally"> | null,
): OpenClusterState {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A lost idle connection is reported by the next lock; its error event must not end the process.
  pool.on("error", () => undefined);
  return {
    messenger,
    once: new PgAdvisoryLocks(pool),
    sessions: { ownsLocally: (sessionId) => directory()?.ownsLocally(sessionId) ?? false },
    async close() {
      await pool.end();
    },
  };
}

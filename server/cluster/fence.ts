// The ledger's fencing check (LedgerFence): run inside the append's transaction, it locks the batch's
// lease rows (FOR SHARE: no node can take one over until the append commits) and refuses the sessions
// this node does not hold with the token it was granted, or whose lease expired by Postgres's clock.
import type { PoolClient } from "pg";
import type { SessionLeases } from "./leases";
import type { LedgerFence } from "../kernel/cluster";

export class LeaseFence implements LedgerFence {
  constructor(private readonly leases: SessionLeases) {}

  async refused(client: PoolClient, sessionIds: readonly string[]): Promise<Set<string>> {
    const { rows } = await client.query<{ sessionId: string; nodeId: string; token: string; live: boolean }>(
      `SELECT "sessionId", "nodeId", "token", "expiresAt" > clock_timestamp() AS "live"
       FROM "SessionLease" WHERE "sessionId" = ANY($1::text[]) FOR SHARE`,
      [[...sessionIds]],
    );
    const rowOf = new Map(rows.map((r) => [r.sessionId, r]));
    const refused = new Set<string>();
    for (const id of sessionIds) {
      const row = rowOf.get(id);
      const token = this.leases.tokenOf(id);
      if (!row || !row.live || row.nodeId !== this.leases.nodeId || token === null || BigInt(row.token) !== token) {
        refused.add(id);
      }
    }
    return refused;
  }
}

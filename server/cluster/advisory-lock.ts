// Work that must run on one node at a time (the retention sweep, the budget check) under a Postgres
// advisory lock: a session-level lock held on one pooled connection for the work's length. A node that
// dies mid-work loses its connection, and with it the lock, so another node can take over. Implements
// the kernel's OnceGate port (server/kernel/once-gate.ts, with `runAlone` for a single process).
import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import type { OnceGate } from "../kernel/once-gate";

/** The lock's 64-bit key: the first 8 bytes of the name's SHA-256, as Postgres's signed bigint (text). */
function advisoryKey(name: string): string {
  return createHash("sha256").update(`maisaka:${name}`, "utf8").digest().readBigInt64BE(0).toString();
}

export class PgAdvisoryLocks implements OnceGate {
  constructor(private readonly pool: Pool) {}

  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const held = await this.holding(name, "pg_advisory_lock", work);
    // pg_advisory_lock returns only once it holds the lock.
    if (!held.ran) throw new Error(`advisory lock ${name} not taken`);
    return held.value;
  }

  tryExclusive<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return this.holding(name, "pg_try_advisory_lock", work);
  }

  /** Takes the lock with `take`, runs `work`, unlocks; `ran: false` when `take` answered false. */
  private async holding<T>(
    name: string,
    take: "pg_advisory_lock" | "pg_try_advisory_lock",
    work: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }> {
    const key = advisoryKey(name);
    const client: PoolClient = await this.pool.connect();
    // A connection that failed a lock statement may still hold the lock: it must not go back to the pool.
    let broken = false;
    // A checked-out client reports a lost connection as an "error" event: unheard, it would end the process.
    const lost = () => void (broken = true);
    client.on("error", lost);
    try {
      const { rows } = await client
        .query<{ taken: boolean | null }>(`SELECT ${take}($1::bigint) AS "taken"`, [key])
        .catch((error: unknown) => {
          broken = true;
          throw error;
        });
      // pg_try_advisory_lock answers false when another session holds it; pg_advisory_lock answers void.
      if (rows[0]?.taken === false) return { ran: false };
      try {
        return { ran: true, value: await work() };
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => (broken = true));
      }
    } finally {
      client.off("error", lost);
      client.release(broken);
    }
  }
}

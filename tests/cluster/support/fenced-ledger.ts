// A small event ledger on Postgres whose append runs the LedgerFence in its transaction, as the
// production Postgres ledger does: refused sessions → FencedError, nothing of the batch written.
import type pg from "pg";
import type { MonitorEvent } from "../../../lib/events/schemas";
import type { LedgerFence } from "../../../server/cluster/types";
import { FencedError, type EventLedger } from "../../../server/monitor/ledger";

export async function createEventTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS "Ev" (
    "sessionId" TEXT NOT NULL, "seq" INT NOT NULL, "type" TEXT NOT NULL, "ts" BIGINT NOT NULL, "data" TEXT NOT NULL,
    "node" TEXT NOT NULL, PRIMARY KEY ("sessionId", "seq"))`);
}

export class FencedTestLedger implements EventLedger {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence: LedgerFence,
    private readonly node: string,
  ) {}

  async append(events: MonitorEvent[]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const refused = await this.fence.refused(client, [...new Set(events.map((e) => e.sessionId))]);
      if (refused.size) {
        await client.query("ROLLBACK");
        throw new FencedError([...refused]);
      }
      for (const e of events) {
        await client.query(`INSERT INTO "Ev" VALUES ($1, $2, $3, $4, $5, $6)`, [
          e.sessionId,
          e.seq,
          e.type,
          e.ts,
          JSON.stringify(e.data),
          this.node,
        ]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const { rows } = await this.pool.query(`SELECT "sessionId", max("seq")::int AS seq FROM "Ev" GROUP BY 1`);
    return new Map(rows.map((r) => [r.sessionId as string, r.seq as number]));
  }

  async lastSeq(sessionId: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT coalesce(max("seq"), 0)::int AS seq FROM "Ev" WHERE "sessionId" = $1`,
      [sessionId],
    );
    return rows[0].seq;
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    const { rows } = await this.pool.query(
      `SELECT "seq", "type", "ts", "data" FROM "Ev" WHERE "sessionId" = $1 AND "seq" > $2 ORDER BY "seq" LIMIT $3`,
      [sessionId, afterSeq, limit],
    );
    // Rows written from MonitorEvents above: the same envelope back.
    return rows.map(
      (r) => ({ sessionId, seq: r.seq, type: r.type, ts: Number(r.ts), data: JSON.parse(r.data) }) as MonitorEvent,
    );
  }

  /** Who wrote each seq of a session, in order. */
  async writers(sessionId: string): Promise<{ seq: number; node: string }[]> {
    const { rows } = await this.pool.query(`SELECT "seq", "node" FROM "Ev" WHERE "sessionId" = $1 ORDER BY "seq"`, [
      sessionId,
    ]);
    return rows;
  }
}

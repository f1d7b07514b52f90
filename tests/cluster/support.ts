// What the cluster suites share: which parts of the cluster this checkout has (a suite whose parts are
// missing is skipped, naming them, never faked), the lease table read straight from Postgres (who owns
// a session, with which token), a session's ledger through any node, posting a message the way a
// client would (retrying a 503 while ownership moves) and the audit of acknowledged messages.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { startTestServer, type TestServer } from "../server/support";
import type { Cluster } from "../support/cluster";
import { freePort } from "../support/services";
import { until } from "../support/until";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The parts of issue 16 the cluster suites run on, by the branch that brings them. */
const PARTS = {
  "i16-pg (server on Postgres, pg ledger)": ["server/db/pg-ledger.ts"],
  "i16-core (leases, fencing, ownership, GET /api/cluster)": [
    "server/cluster/leases.ts",
    "server/cluster/fence.ts",
    "server/cluster/ownership.ts",
    "server/cluster/status.ts",
    "server/cluster/node.ts",
  ],
  "i16-redis (messenger, event feed, session proxy)": [
    "server/cluster/messenger.ts",
    "server/cluster/event-feed.ts",
    "server/cluster/session-proxy.ts",
  ],
} as const;
type Part = "pg" | "core" | "redis";
const KEYS: Record<Part, keyof typeof PARTS> = {
  pg: "i16-pg (server on Postgres, pg ledger)",
  core: "i16-core (leases, fencing, ownership, GET /api/cluster)",
  redis: "i16-redis (messenger, event feed, session proxy)",
};

/** The parts among `needed` this checkout lacks, named for a skipped suite's title. */
export function missingParts(...needed: Part[]): string[] {
  return needed.map((p) => KEYS[p]).filter((key) => PARTS[key].some((file) => !existsSync(path.join(repoRoot, file))));
}

/** " (skipped: waits for …)" or "" when every part is there. */
export const waitsFor = (missing: string[]) => (missing.length ? ` (skipped: waits for ${missing.join("; ")})` : "");

export interface Lease {
  nodeId: string;
  token: string;
  /** Not expired by Postgres's clock. */
  live: boolean;
  /** From its last renewal to its expiry: shorter than the lease time when its node released it. */
  heldMs: number;
}

/** Reads the lease table (server/cluster/leases.ts) directly: the one truth about ownership. */
export class LeaseReader {
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // A Postgres restart drops the pool's connections: the next query opens new ones.
    this.pool.on("error", () => undefined);
  }

  async of(sessionId: string): Promise<Lease | null> {
    const { rows } = await this.pool.query<Lease>(
      `SELECT "nodeId", token::text AS token, "expiresAt" > now() AS live,
         (EXTRACT(EPOCH FROM ("expiresAt" - "renewedAt")) * 1000)::float8 AS "heldMs"
       FROM "SessionLease" WHERE "sessionId" = $1`,
      [sessionId],
    );
    return rows[0] ?? null;
  }

  /** Waits until a live lease on the session is held by a node `accept` takes; returns it. */
  async waitFor(
    sessionId: string,
    accept: (lease: Lease) => boolean,
    what: string,
    timeoutMs = 30_000,
  ): Promise<Lease> {
    let last: Lease | null | string = null;
    return until(
      async () => {
        try {
          last = await this.of(sessionId);
        } catch (error) {
          last = error instanceof Error ? error.message : String(error);
          return null;
        }
        return last && typeof last !== "string" && last.live && accept(last) ? last : null;
      },
      () => `${what}: lease of ${sessionId} is ${JSON.stringify(last)}`,
      { timeoutMs, intervalMs: 50 },
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The session's whole ledger, read through one node. */
export async function ledgerOf(cluster: Cluster, slot: number, sessionId: string): Promise<MonitorEvent[]> {
  const all: MonitorEvent[] = [];
  for (let after = 0; ;) {
    const res = await cluster.api(slot, "GET", `/api/sessions/${sessionId}/events?afterSeq=${after}&limit=1000`);
    if (res.status !== 200) throw new Error(`events of ${sessionId}: ${res.status} ${res.text}`);
    const page = (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
    all.push(...page);
    if (page.length < 1000) return all;
    after = page[page.length - 1].seq;
  }
}

export const tag = (sessionId: string) => `⟦${sessionId}⟧`;

let said = 0;

/**
 * Posts a chat message (tagged with the session, for the routed model) to one node. Returns the
 * message id when acknowledged (202), null when refused with 503 (the owner is moving or the database
 * is down: not acknowledged, a client retries); anything else throws.
 */
export async function postMessage(
  cluster: Cluster,
  slot: number,
  sessionId: string,
  text = "大家好，今天聊点什么？",
): Promise<string | null> {
  const messageId = `${sessionId}-m${++said}`;
  const res = await cluster.api(
    slot,
    "POST",
    `/api/sessions/${sessionId}/messages`,
    { userId: "u1", userName: "Alice", text: `${tag(sessionId)} ${text}`, messageId },
    { timeoutMs: 30_000 },
  );
  if (res.status === 202) return (res.json as { messageId: string }).messageId;
  if (res.status === 503 || res.status === 429) return null;
  throw new Error(`POST message to ${sessionId} via slot ${slot}: ${res.status} ${res.text}`);
}

/** Posts until acknowledged (a client retrying 503s), within `timeoutMs`. */
export async function sayAcked(
  cluster: Cluster,
  slot: number,
  sessionId: string,
  acked: string[],
  timeoutMs = 30_000,
): Promise<string> {
  const id = await until(() => postMessage(cluster, slot, sessionId), `${sessionId} to acknowledge a message`, {
    timeoutMs,
    intervalMs: 100,
  });
  acked.push(id);
  return id;
}

export interface Audit {
  /** Seqs not exactly 1..N. */
  seqsBroken: boolean;
  neverIngested: string[];
  ingestedTwice: string[];
  /** Acknowledged messages no cycle ended after (the bot never got to consider them). */
  noTurnAfter: string[];
}

export function audit(events: MonitorEvent[], acked: readonly string[]): Audit {
  const ingestSeqs = new Map<string, number[]>();
  let lastCycleEnd = 0;
  for (const e of events) {
    if (e.type === "message.ingested")
      ingestSeqs.set(e.data.messageId, [...(ingestSeqs.get(e.data.messageId) ?? []), e.seq]);
    if (e.type === "cycle.end") lastCycleEnd = e.seq;
  }
  return {
    seqsBroken: events.some((e, i) => e.seq !== i + 1),
    neverIngested: acked.filter((id) => !ingestSeqs.has(id)),
    ingestedTwice: [...ingestSeqs].filter(([, seqs]) => seqs.length > 1).map(([id]) => id),
    noTurnAfter: acked.filter((id) => (ingestSeqs.get(id)?.[0] ?? Infinity) > lastCycleEnd),
  };
}

export const isClean = (a: Audit) =>
  !a.seqsBroken && !a.neverIngested.length && !a.ingestedTwice.length && !a.noTurnAfter.length;

/** Waits until every session's audit is clean (its turns caught up), then returns the audits. */
export async function settledAudits(
  cluster: Cluster,
  slot: number,
  acked: Map<string, string[]>,
  timeoutMs = 60_000,
): Promise<Map<string, Audit>> {
  const audits = new Map<string, Audit>();
  const check = async () => {
    for (const [id, list] of acked) audits.set(id, audit(await ledgerOf(cluster, slot, id), list));
    return [...audits.values()].every(isClean);
  };
  await until(check, "every session to catch up", { timeoutMs, intervalMs: 200 }).catch(() => undefined);
  return audits;
}

/** Only the audits with a problem, for one readable assertion. */
export function problems(audits: Map<string, Audit>): Record<string, Audit> {
  return Object.fromEntries([...audits].filter(([, a]) => !isClean(a)));
}

/**
 * An app server in this process as a cluster member (`npm start` with DATABASE_URL on Postgres and
 * REDIS_URL): its node id and URL, the runner's model settings left out unless `env` names them.
 */
export async function startMember(opts: {
  nodeId: string;
  databaseUrl: string;
  redisUrl: string;
  /** MAISAKA_LEASE_TTL_MS; the server's default when absent. */
  leaseTtlMs?: number;
  config?: Record<string, unknown>;
  env?: Record<string, string>;
}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer({
    port,
    databaseUrl: opts.databaseUrl,
    config: opts.config,
    env: {
      ...process.env,
      OPENAI_BASE_URL: undefined,
      OPENAI_API_KEY: undefined,
      MAISAKA_MODEL: undefined,
      REDIS_URL: opts.redisUrl,
      MAISAKA_NODE_ID: opts.nodeId,
      MAISAKA_NODE_URL: `http://127.0.0.1:${port}`,
      ...(opts.leaseTtlMs === undefined ? {} : { MAISAKA_LEASE_TTL_MS: String(opts.leaseTtlMs) }),
      ...opts.env,
    },
  });
}

// Three real node processes (node --import tsx server/start.ts) on one Postgres and a real redis-server:
// every session runs on exactly one node; kill -9 of a session's owner mid-turn moves it to another node
// within the lease time plus two renewals, restored from snapshot and ledger: the acknowledged message
// gets its turn there and the seq continues without reuse. A node paused past its lease writes nothing
// of its old sessions once it resumes. GET /api/cluster shows the nodes and their sessions.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSchema, type ClusterStatus } from "../../lib/api/cluster";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { rendezvousNode } from "../../server/cluster/placement";
import { migrate } from "../../server/db/migrate";
import { newPostgresDatabase } from "../support/postgres-db";
import { freePort, startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";
import { FAST_CHAT, request, startServerProcess, tempDir, TEST_TOKEN, type ServerProcess } from "../server/support";

const TTL = 1_500;
/** A dead node's sessions are taken within the lease time and two renewal ticks (plus the restore). */
const FAILOVER_BOUND_MS = TTL + (2 * TTL) / 3 + 2_000;
const WAIT = { timeoutMs: 30_000, intervalMs: 50 };

let databaseUrl: string;
let pool: pg.Pool;
let redis: RedisServer;
const nodes = new Map<string, ServerProcess>();

async function startNode(id: string, configFile: string): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = await tempDir();
  // The shared bootstrap admin, from a token file: no launcher process, so kill -9 hits the server itself.
  await writeFile(path.join(dataDir, "admin-token"), TEST_TOKEN, { mode: 0o600 });
  const node = await startServerProcess({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    PORT: String(port),
    MAISAKA_NODE_ID: id,
    MAISAKA_NODE_URL: `http://127.0.0.1:${port}`,
    MAISAKA_LEASE_TTL_MS: String(TTL),
    MAISAKA_DATA_DIR: dataDir,
    MAISAKA_CONFIG: configFile,
  });
  nodes.set(id, node);
  return node;
}

const api = (node: ServerProcess, method: string, route: string, body?: unknown) =>
  request(node.url, method, route, body);

async function cluster(node: ServerProcess): Promise<ClusterStatus> {
  return clusterSchema.parse((await api(node, "GET", "/api/cluster")).json);
}

async function events(node: ServerProcess, sessionId: string): Promise<MonitorEvent[]> {
  const res = await api(node, "GET", `/api/sessions/${sessionId}/events?limit=5000`);
  return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
}

/** The live lease holder of a session, by Postgres. */
async function ownerOf(sessionId: string): Promise<string | null> {
  const { rows } = await pool.query(
    `SELECT "nodeId" FROM "SessionLease" WHERE "sessionId" = $1 AND "expiresAt" > clock_timestamp()`,
    [sessionId],
  );
  return rows[0]?.nodeId ?? null;
}

/** Posts a chat message to whichever node runs the session (the others answer 503 until it is theirs). */
async function say(sessionId: string, text: string, among: ServerProcess[]): Promise<string> {
  return until(
    async () => {
      for (const node of among) {
        const res = await api(node, "POST", `/api/sessions/${sessionId}/messages`, {
          userId: "u1",
          userName: "Alice",
          text,
          atBot: true,
        }).catch(() => null);
        if (res?.status === 202) return (res.json as { messageId: string }).messageId;
      }
      return null;
    },
    `a node to accept a message for ${sessionId}`,
    WAIT,
  );
}

/** The message was ingested and answered after it (a turn ran for it). */
async function answered(node: ServerProcess, sessionId: string, messageId: string): Promise<MonitorEvent[]> {
  return until(
    async () => {
      const all = await events(node, sessionId);
      const ingested = all.find((e) => e.type === "message.ingested" && e.data.messageId === messageId);
      return ingested && all.some((e) => e.type === "message.sent" && e.seq > ingested.seq) ? all : null;
    },
    `the turn for ${messageId} in ${sessionId}`,
    WAIT,
  );
}

function expectContiguous(all: MonitorEvent[]): void {
  expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
}

beforeAll(async () => {
  databaseUrl = await newPostgresDatabase("failover");
  await migrate(databaseUrl);
  pool = new pg.Pool({ connectionString: databaseUrl });
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  for (const node of nodes.values()) {
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill("SIGCONT");
    node.child.kill("SIGKILL");
    await node.exited;
  }
  await pool?.end();
  await redis?.stop();
});

describe("three nodes on Postgres and Redis", () => {
  it("owns each session on one node; kill -9 of an owner mid-turn moves its sessions; a paused owner writes nothing", async () => {
    const configFile = path.join(await tempDir(), "maisaka.config.json");
    await writeFile(configFile, JSON.stringify(FAST_CHAT));
    const ids = ["n1", "n2", "n3"];
    // One after the other: the first start of a database seeds it.
    for (const id of ids) await startNode(id, configFile);
    const all = () => [...nodes.values()];
    const first = nodes.get("n1")!;
    await until(
      async () => (await cluster(first)).nodes.filter((n) => n.state === "live").length === 3,
      "3 live nodes",
      WAIT,
    );

    const sessions = Array.from({ length: 6 }, (_, i) => `room-${i}`);
    for (const id of sessions) expect((await api(first, "POST", "/api/sessions", { id, name: id })).status).toBe(201);
    for (const id of sessions) await answered(first, id, await say(id, "麦麦你好吗？", all()));
    const owners = new Map<string, string>();
    for (const id of sessions) owners.set(id, (await ownerOf(id))!);
    expect(new Set(owners.values()).size).toBeGreaterThan(1);
    const status = await cluster(nodes.get("n2")!);
    expect(status.mode).toBe("cluster");
    expect(status.leaseTtlMs).toBe(TTL);
    expect(status.nodes.find((n) => n.self)?.id).toBe("n2");
    expect(status.nodes.reduce((sum, n) => sum + n.sessions, 0)).toBe(sessions.length);
    for (const n of status.nodes) expect(n.sessions).toBe([...owners.values()].filter((o) => o === n.id).length);

    // --- kill -9 the owner of room-0 right after it acknowledged a message (mid-turn) ---
    const victimId = owners.get("room-0")!;
    const victim = nodes.get(victimId)!;
    const res = await api(victim, "POST", "/api/sessions/room-0/messages", {
      userId: "u2",
      userName: "Bob",
      text: "麦麦，在吗？",
      atBot: true,
    });
    expect(res.status).toBe(202);
    const messageId = (res.json as { messageId: string }).messageId;
    victim.child.kill("SIGKILL");
    const killedAt = Date.now();
    await victim.exited;
    nodes.delete(victimId);
    const survivors = all();
    const heir = await until(async () => {
      const owner = await ownerOf("room-0");
      return owner && owner !== victimId ? owner : null;
    }, "another node to take room-0");
    const failoverMs = Date.now() - killedAt;
    expect(failoverMs).toBeLessThan(FAILOVER_BOUND_MS);
    const after = await answered(survivors[0], "room-0", messageId);
    expectContiguous(after);
    expect(after.filter((e) => e.type === "message.ingested" && e.data.messageId === messageId)).toHaveLength(1);
    // Every session the victim held moves; none waits unowned.
    await until(
      async () => {
        const s = await cluster(survivors[0]);
        const gone = s.nodes.find((n) => n.id === victimId);
        return s.unowned === 0 && gone?.state === "gone" && gone.sessions === 0;
      },
      "the victim's sessions to be taken over",
      WAIT,
    );
    const survivorIds = ids.filter((id) => id !== victimId);
    const heirs = new Map<string, string | null>();
    for (const id of sessions) {
      heirs.set(id, await ownerOf(id));
      expect(survivorIds).toContain(heirs.get(id));
    }
    const heirOf = (id: string) => heirs.get(id) ?? null;

    // --- SIGSTOP the owner of a session past its lease, SIGCONT: it must not write that session again ---
    // A survivor's session stays where it was when the victim died (rendezvous placement).
    const target = sessions.find((id) => id !== "room-0" && owners.get(id) !== victimId)!;
    const pausedId = (await ownerOf(target))!;
    const paused = nodes.get(pausedId)!;
    const other = all().find((n) => n !== paused)!;
    const before = await events(other, target);
    paused.child.kill("SIGSTOP");
    const took = await say(target, "还在吗？", [other]);
    expect(await ownerOf(target)).not.toBe(pausedId);
    const answeredThere = await answered(other, target, took);
    paused.child.kill("SIGCONT");
    await until(
      () => paused.output().includes(`session ${target}: lease lost`),
      "the resumed node to drop its lease",
      WAIT,
    );
    // The resumed node answers again, and the session's stream is one contiguous run from the new owner.
    await until(
      async () => (await api(paused, "GET", "/api/health")).status === 200,
      "the resumed node to answer",
      WAIT,
    );
    const final = await events(other, target);
    expectContiguous(final);
    expect(final.length).toBeGreaterThanOrEqual(answeredThere.length);
    expect(final.slice(0, before.length)).toEqual(before);

    // --- the killed node starts again (joins): the sessions it wins by rendezvous move to it between
    // turns and their next message is answered there; it stops gracefully (leaves): they move back ---
    const rejoined = await startNode(victimId, configFile);
    const toRejoined = sessions.filter((id) => rendezvousNode(id, ids) === victimId);
    expect(toRejoined.length).toBeGreaterThan(0);
    for (const id of toRejoined) {
      await until(async () => (await ownerOf(id)) !== heirOf(id), `${id} to be released for ${victimId}`, WAIT);
      // Straight to it: a node that has not seen it join yet may still place the session on itself.
      await answered(rejoined, id, await say(id, "你是谁？", [rejoined]));
      expect(await ownerOf(id)).toBe(victimId);
    }
    rejoined.child.kill("SIGTERM");
    expect((await rejoined.exited).code).toBe(0);
    nodes.delete(victimId);
    for (const id of toRejoined) {
      expect(await ownerOf(id)).not.toBe(victimId);
      await answered(all()[0], id, await say(id, "还有人吗？", all()));
      expect(survivorIds).toContain(await ownerOf(id));
      expectContiguous(await events(all()[0], id));
    }
    console.log(`[failover] kill -9 → room-0 leased by ${heir} after ${failoverMs} ms (bound ${FAILOVER_BOUND_MS} ms)`);
  }, 180_000);
});

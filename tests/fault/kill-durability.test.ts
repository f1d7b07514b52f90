// kill -9 at full load: 20 sessions post as fast as the API lets them while the server process is
// killed with SIGKILL at random moments, several times, and started again on the same database each
// time. Afterwards, from the ledger: every acknowledged (202) message has exactly one message.ingested
// and a cycle that ended after it (the bot got to consider it), no message is ingested twice, and
// each session's seqs are 1..N (continued across every restart, never reused), and every event a live
// client was sent before a kill (some of them only in the intent journal then) is in the ledger as it was
// sent. KILL_SEED=<n> replays the kill moments of a failed run.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionSummarySchema } from "../../lib/api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import {
  connectMonitor,
  delay,
  FAST_CHAT,
  range,
  request,
  startServerProcess,
  tempDatabaseUrl,
  tempDir,
  TEST_TOKEN,
  type MonitorClient,
  type ServerProcess,
} from "../server/support";
import { until } from "../support/until";

const SESSIONS = 20;
const KILLS = 5;
/** Acknowledged messages in a phase before its kill moment is drawn (the second kill: right away,
 * while the restarted process is still recovering). */
const ACKS_BEFORE_KILL = 30;

const total = (acked: Map<string, string[]>) => [...acked.values()].reduce((n, list) => n + list.length, 0);

/** Small seeded generator (mulberry32): the kill moments vary per run but a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function ledgerOf(url: string, sessionId: string): Promise<MonitorEvent[]> {
  const all: MonitorEvent[] = [];
  for (let after = 0; ;) {
    const res = await request(url, "GET", `/api/sessions/${sessionId}/events?afterSeq=${after}&limit=1000`);
    if (res.status !== 200) throw new Error(`events of ${sessionId}: ${res.status} ${res.text}`);
    const page = (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
    all.push(...page);
    if (page.length < 1000) return all;
    after = page[page.length - 1].seq;
  }
}

/** Acknowledged messages whose ingest or following cycle is missing; ids ingested more than once. */
function audit(events: MonitorEvent[], acked: string[]) {
  const ingestSeqs = new Map<string, number[]>();
  let lastCycleEnd = 0;
  for (const e of events) {
    if (e.type === "message.ingested")
      ingestSeqs.set(e.data.messageId, [...(ingestSeqs.get(e.data.messageId) ?? []), e.seq]);
    if (e.type === "cycle.end") lastCycleEnd = e.seq;
  }
  return {
    neverIngested: acked.filter((id) => !ingestSeqs.has(id)),
    noTurnAfter: acked.filter((id) => (ingestSeqs.get(id)?.[0] ?? Infinity) > lastCycleEnd),
    twice: [...ingestSeqs].filter(([, seqs]) => seqs.length > 1).map(([id]) => id),
  };
}

describe("kill -9 at full load", () => {
  it("loses no acknowledged message and reuses no seq across repeated kills", async () => {
    const seed = Number(process.env.KILL_SEED ?? Date.now() % 100_000);
    const rand = random(seed);
    const config = path.join(await tempDir(), "maisaka.config.json");
    await writeFile(config, JSON.stringify(FAST_CHAT));
    const env = {
      DATABASE_URL: await tempDatabaseUrl(),
      MAISAKA_CONFIG: config,
      MAISAKA_DATA_DIR: await tempDir(),
      MAISAKA_ADMIN_TOKEN: TEST_TOKEN,
    };
    const ids = range(1, SESSIONS).map((i) => `k${i}`);
    const acked = new Map<string, string[]>(ids.map((id) => [id, []]));
    let proc: ServerProcess = await startServerProcess(env);
    for (const id of ids) expect((await request(proc.url, "POST", "/api/sessions", { id })).status).toBe(201);
    // What live clients were sent, over every process.
    const watchers: MonitorClient[] = [];
    const watch = async (url: string) => {
      const client = await connectMonitor(url);
      expect((await client.subscribe({ sessionId: "*" })).ok).toBe(true);
      watchers.push(client);
    };
    await watch(proc.url);

    let counter = 0;
    for (let kill = 1; kill <= KILLS; kill++) {
      const url = proc.url;
      let dead = false;
      // Each session posts back to back; a 429 (the per-session inbound limit) waits a little.
      const posters = ids.map(async (id) => {
        while (!dead) {
          const messageId = `${id}-m${++counter}`;
          try {
            const res = await request(url, "POST", `/api/sessions/${id}/messages`, {
              userId: "u1",
              userName: "Alice",
              text: `第${counter}条：麦麦你看到了吗？`,
              atBot: counter % 3 === 0,
              messageId,
            });
            if (res.status === 202) acked.get(id)?.push(messageId);
            else if (res.status === 429) await delay(50);
            else throw new Error(`POST ${id}: ${res.status} ${res.text}`);
          } catch (error) {
            if (dead) return; // the connection died with the process: not acknowledged
            throw error;
          }
        }
      });
      // Kill at a random moment once the process is busy (this phase got its first acks).
      const before = total(acked);
      const threshold = kill === 2 ? 1 : ACKS_BEFORE_KILL;
      await until(() => total(acked) >= before + threshold, "acknowledged messages", { timeoutMs: 30_000 });
      await delay(Math.floor(rand() * 1_000));
      dead = true;
      proc.child.kill("SIGKILL");
      expect((await proc.exited).signal).toBe("SIGKILL");
      await Promise.all(posters);
      proc = await startServerProcess(env);
      await watch(proc.url);
    }

    // The last process catches up on whatever the kills left; then the ledger must account for everything.
    const url = proc.url;
    const acknowledged = total(acked);
    const settled = async () => {
      for (const id of ids) {
        const summary = sessionSummarySchema.parse((await request(url, "GET", `/api/sessions/${id}`)).json);
        if (summary.pendingMessages > 0 || summary.agentState === "running") return false;
        const left = audit(await ledgerOf(url, id), acked.get(id) ?? []);
        if (left.neverIngested.length || left.noTurnAfter.length) return false;
      }
      return true;
    };
    await until(settled, "every session to catch up", { timeoutMs: 45_000 }).catch(() => undefined);

    const problems: string[] = [];
    for (const id of ids) {
      const events = await ledgerOf(url, id);
      const seqs = events.map((e) => e.seq);
      if (seqs.join() !== range(1, events.length).join()) problems.push(`${id}: seqs are not 1..${events.length}`);
      const { neverIngested, noTurnAfter, twice } = audit(events, acked.get(id) ?? []);
      if (neverIngested.length) problems.push(`${id}: never ingested ${neverIngested.join(", ")}`);
      if (noTurnAfter.length) problems.push(`${id}: no cycle after ${noTurnAfter.join(", ")}`);
      if (twice.length) problems.push(`${id}: ingested twice ${twice.join(", ")}`);
    }
    // A seq a client was sent stands for the same event after every restart.
    const stored = new Map<string, string>();
    for (const id of ids) for (const e of await ledgerOf(url, id)) stored.set(`${id}#${e.seq}`, JSON.stringify(e));
    let sent = 0;
    for (const client of watchers) {
      client.close();
      for (const e of client.events) {
        sent++;
        const key = `${e.sessionId}#${e.seq}`;
        if (stored.get(key) !== JSON.stringify(e))
          problems.push(`${key}: sent live, ${stored.has(key) ? "stored otherwise" : "not stored"}`);
      }
    }
    expect(sent).toBeGreaterThan(0);
    expect(problems, `seed ${seed}, ${acknowledged} acknowledged`).toEqual([]);
  }, 150_000);
});

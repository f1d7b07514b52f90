// Load: many sessions at once on the real server (API, engine, Prisma/SQLite ledger, Socket.IO), the
// scripted model answering each call after 100-800 ms, socket clients in another process following
// "*". Bounded in count (every session gets exactly LOAD_ROUNDS + warm-up messages) and in time (a
// deadline per round). Checks: nothing lost (each session's ledger is seq 1..N with every accepted
// message ingested and every turn finished; every client received exactly that, in order) and memory
// flat after the warm-up. No timing assertions: the benchmark measures speed.
//
// CI runs the short default; a longer run: LOAD_SESSIONS=500 LOAD_ROUNDS=20 LOAD_CLIENTS=50 npx vitest run tests/load
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { MONITOR_NAMESPACE } from "../../lib/api/schemas";
import { range, startTestServer, TEST_TOKEN, type TestServer } from "../server/support";
import { heapAfterGc } from "./heap";
import { MonitorClients, type Report } from "./monitor-clients";
import { ScriptedModel, uniformLatency } from "./scripted-model";
import { until } from "../support/until";

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

const SESSIONS = envInt("LOAD_SESSIONS", 200);
const CLIENTS = envInt("LOAD_CLIENTS", 20);
/** Rounds measured after the warm-up; each round sends one message into every session. */
const ROUNDS = envInt("LOAD_ROUNDS", 2);
/** The warm-up brings up every runtime, the JIT and the database's statement caches. */
const WARMUP_ROUNDS = 1;
/** One round: four model calls of up to 800 ms per turn, with a wide margin for a loaded machine. */
const ROUND_DEADLINE_MS = 60_000;
/**
 * Heap growth allowed after the warm-up: GC noise (under 1 MB in practice), or a quarter of the JSON
 * text the measured rounds emitted (in characters), whichever is larger. Kept as objects, the event
 * stream would take more heap than its JSON has characters.
 */
const HEAP_NOISE_BYTES = 4 * 2 ** 20;

let server: TestServer;
let clients: MonitorClients;
/** Per session: turns that ended with finish, and turns that ended any other way. */
const finished = new Map<string, number>();
const badEnds: string[] = [];
let emittedChars = 0;

const ids = Array.from({ length: SESSIONS }, (_, i) => `load-${i}`);

beforeAll(async () => {
  server = await startTestServer({
    model: new ScriptedModel({ policy: "reply", latencyMs: uniformLatency(100, 800, 42) }),
    // A small window, trimmed every few turns: the histories stop growing early.
    config: {
      chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0, maxContextSize: 4, maxRuntimes: SESSIONS + 10 },
    },
  });
  server.app.engine.bus.subscribe((e: MonitorEvent) => {
    emittedChars += JSON.stringify(e).length;
    if (e.type !== "cycle.end" || e.data.endReason === "tool_continue") return;
    if (e.data.endReason === "finish") finished.set(e.sessionId, (finished.get(e.sessionId) ?? 0) + 1);
    else badEnds.push(`${e.sessionId}: ${e.data.endReason}`);
  });
  clients = MonitorClients.start();
}, 60_000);

afterAll(async () => {
  await clients?.close();
  await server?.close();
});

/** One message into every session (20 requests in flight at a time), then every turn's end. */
async function round(n: number, accepted: Map<string, string[]>): Promise<void> {
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const res = await server.say(id, `第 ${n} 轮：${id} 里大家在聊什么？`, {
          userId: `u${n % 5}`,
          userName: `User${n % 5}`,
        });
        expect(res.status, res.text).toBe(202);
        accepted.get(id)?.push((res.json as { messageId: string }).messageId);
      }),
    );
  }
  await until(() => ids.every((id) => (finished.get(id) ?? 0) >= n) || badEnds.length > 0, `round ${n} to finish`, {
    timeoutMs: ROUND_DEADLINE_MS,
    intervalMs: 50,
  });
  expect(badEnds).toEqual([]);
}

function receipts(report: Report, ledger: Map<string, number>): string[] {
  const problems: string[] = [];
  report.clients.forEach((client, c) => {
    for (const [id, last] of ledger) {
      const got = client.sessions[id];
      if (!got || got.count !== last || got.last !== last || got.outOfOrder)
        problems.push(`client ${c}, ${id}: ${JSON.stringify(got)} for ${last} events`);
    }
  });
  return problems;
}

describe(`load: ${SESSIONS} sessions, ${CLIENTS} socket clients, ${WARMUP_ROUNDS}+${ROUNDS} rounds`, () => {
  it(
    "loses nothing, in the ledger or on the sockets, and holds its memory flat after the warm-up",
    async () => {
      await clients.connect({
        url: `${server.url}${MONITOR_NAMESPACE}`,
        token: TEST_TOKEN,
        clients: CLIENTS,
        subscribe: { sessionId: "*", afterSeq: 0 },
      });
      const accepted = new Map(ids.map((id) => [id, [] as string[]]));
      for (const id of ids) await server.createSession({ id, name: id });

      for (let n = 1; n <= WARMUP_ROUNDS; n++) await round(n, accepted);
      await server.app.engine.bus.whenFlushed();
      const warmHeap = heapAfterGc();
      const charsBefore = emittedChars;
      const heaps: number[] = [];
      for (let n = WARMUP_ROUNDS + 1; n <= WARMUP_ROUNDS + ROUNDS; n++) {
        await round(n, accepted);
        heaps.push(heapAfterGc());
      }
      await server.app.engine.bus.whenFlushed();

      // The ledger: every session 1..N, every accepted message ingested, one finished turn per message.
      const ledger = new Map<string, number>();
      for (const id of ids) {
        const events = await server.events(id);
        expect(events.map((e) => e.seq)).toEqual(range(1, events.length));
        const ingested = new Set(events.flatMap((e) => (e.type === "message.ingested" ? [e.data.messageId] : [])));
        expect(accepted.get(id)?.filter((m) => !ingested.has(m))).toEqual([]);
        expect(events.filter((e) => e.type === "message.sent")).toHaveLength(WARMUP_ROUNDS + ROUNDS);
        ledger.set(id, events.length);
      }
      expect([...finished.values()].reduce((a, b) => a + b, 0)).toBe(SESSIONS * (WARMUP_ROUNDS + ROUNDS));

      // The sockets: every client got each session's events exactly once, in order.
      let report = await clients.collect();
      await until(
        async () => {
          report = await clients.collect();
          return receipts(report, ledger).length === 0;
        },
        "every client to receive every event",
        { timeoutMs: 30_000, intervalMs: 50 },
      ).catch(() => undefined);
      expect(receipts(report, ledger).slice(0, 5)).toEqual([]);
      expect(report.clients.every((c) => c.connected)).toBe(true);

      // Memory: flat after the warm-up, far below what keeping the event stream would take.
      const growth = Math.max(...heaps) - warmHeap;
      const bound = Math.max(HEAP_NOISE_BYTES, (emittedChars - charsBefore) / 4);
      const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
      console.log(
        `heap after warm-up ${mb(warmHeap)}, after each round ${heaps.map(mb).join(", ")}; emitted ${((emittedChars - charsBefore) / 2 ** 20).toFixed(1)} M characters; bound ${mb(bound)}`,
      );
      expect(growth).toBeLessThan(bound);
    },
    120_000 + (WARMUP_ROUNDS + ROUNDS) * ROUND_DEADLINE_MS,
  );
});

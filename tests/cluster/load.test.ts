// Load spread over three nodes: many sessions on one Postgres and one Redis, each message posted to a
// node chosen round-robin (mostly not the session's owner: the session proxy carries it), the model a
// cooperative scripted endpoint answering after 20-200 ms, socket clients in another process on every
// node following "*". Checks: the sessions are spread over all three nodes and all owned; nothing lost
// (each ledger 1..N, every acknowledged message ingested once, one finished turn per message); every
// client, whichever node it is on, received every session's events exactly once, in order. No timing
// assertions: the benchmark (bench/measures/cluster.ts) measures speed.
//
// A longer run: CLUSTER_LOAD_SESSIONS=300 CLUSTER_LOAD_ROUNDS=10 npx vitest run tests/cluster/load.test.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MONITOR_NAMESPACE } from "../../lib/api/schemas";
import { range } from "../server/support";
import { CLUSTER_TOKEN, startCluster, type Cluster } from "../support/cluster";
import { COOPERATIVE_MODELS, startCooperativeModel, type CooperativeModel } from "../support/cooperative-model";
import { until } from "../support/until";
import { MonitorClients, type Report } from "../load/monitor-clients";
import { uniformLatency } from "../load/scripted-model";
import { FAST_CHAT } from "../server/support";
import { LeaseReader, ledgerOf, missingParts, problems, sayAcked, settledAudits, waitsFor } from "./support";

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

const NODES = 3;
const SESSIONS = envInt("CLUSTER_LOAD_SESSIONS", 60);
const ROUNDS = envInt("CLUSTER_LOAD_ROUNDS", 3);
const CLIENTS_PER_NODE = envInt("CLUSTER_LOAD_CLIENTS", 3);
/** One round: two model calls of up to 200 ms per turn, three node processes on two shared cores. */
const ROUND_DEADLINE_MS = 90_000;

const ids = range(1, SESSIONS).map((i) => `cl-${i}`);
const missing = missingParts("pg", "core", "redis");

describe.skipIf(missing.length > 0)(
  `cluster load: ${SESSIONS} sessions over ${NODES} nodes, ${CLIENTS_PER_NODE} socket clients per node, ${ROUNDS} rounds${waitsFor(missing)}`,
  () => {
    let model: CooperativeModel;
    let cluster: Cluster;
    let clients: MonitorClients;

    beforeAll(async () => {
      model = await startCooperativeModel(uniformLatency(20, 200, 7));
      cluster = await startCluster({
        nodes: NODES,
        modelBaseUrl: model.llm.baseURL,
        config: {
          chat: { ...FAST_CHAT.chat, maxContextSize: 4, maxRuntimes: SESSIONS + 10 },
          models: { ...COOPERATIVE_MODELS, maxRetries: 2, timeoutMs: 20_000 },
        },
      });
      clients = MonitorClients.start();
    }, 180_000);

    afterAll(async () => {
      await clients?.close();
      await cluster?.close();
      await model?.llm.close();
    });

    it(
      "spreads the sessions, loses nothing and delivers every event to every node's clients",
      async () => {
        for (let slot = 0; slot < NODES; slot++)
          await clients.connect({
            url: `${cluster.nodes[slot].url}${MONITOR_NAMESPACE}`,
            token: CLUSTER_TOKEN,
            clients: CLIENTS_PER_NODE,
            subscribe: { sessionId: "*", afterSeq: 0 },
          });
        // Created through every node in turn: any node may take a new session.
        for (const [i, id] of ids.entries()) {
          const res = await cluster.api(i % NODES, "POST", "/api/sessions", { id, name: id });
          expect(res.status, res.text).toBe(201);
        }
        const acked = new Map(ids.map((id) => [id, [] as string[]]));
        for (let round = 1; round <= ROUNDS; round++) {
          for (let i = 0; i < ids.length; i += 20)
            await Promise.all(
              ids
                .slice(i, i + 20)
                .map((id, k) => sayAcked(cluster, (i + k + round) % NODES, id, acked.get(id) ?? [], 60_000)),
            );
          const audits = await settledAudits(cluster, round % NODES, acked, ROUND_DEADLINE_MS);
          expect(problems(audits), `round ${round}`).toEqual({});
        }

        // Every session owned, by all three nodes between them.
        const status = await cluster.status(0);
        expect(status.unowned).toBe(0);
        const live = status.nodes.filter((n) => n.state === "live");
        expect(live).toHaveLength(NODES);
        for (const n of live) expect(n.sessions, n.id).toBeGreaterThan(0);
        expect(live.reduce((sum, n) => sum + n.sessions, 0)).toBe(SESSIONS);
        const leases = new LeaseReader(cluster.databaseUrl);
        try {
          for (const id of ids) expect((await leases.of(id))?.live, id).toBe(true);
        } finally {
          await leases.close();
        }

        // One finished turn per message (the planner finishes every turn).
        const ledger = new Map<string, number>();
        for (const id of ids) {
          const events = await ledgerOf(cluster, 0, id);
          const finishes = events.filter((e) => e.type === "cycle.end" && e.data.endReason === "finish");
          expect(finishes.length, id).toBeGreaterThanOrEqual(1);
          ledger.set(id, events.length);
        }

        // The sockets: every client on every node got each session's events exactly once, in order.
        const receipts = (report: Report) => {
          const bad: string[] = [];
          report.clients.forEach((client, c) => {
            for (const [id, last] of ledger) {
              const got = client.sessions[id];
              if (!got || got.count !== last || got.last !== last || got.outOfOrder)
                bad.push(
                  `client ${c} (node ${Math.floor(c / CLIENTS_PER_NODE)}), ${id}: ${JSON.stringify(got)} for ${last} events`,
                );
            }
          });
          return bad;
        };
        let report = await clients.collect();
        await until(
          async () => {
            report = await clients.collect();
            return receipts(report).length === 0;
          },
          "every client to receive every event",
          { timeoutMs: 30_000, intervalMs: 100 },
        ).catch(() => undefined);
        expect(receipts(report).slice(0, 5)).toEqual([]);
        expect(report.clients.every((c) => c.connected)).toBe(true);
        console.log(
          `${SESSIONS} sessions: ${live.map((n) => `${n.id} ${n.sessions}`).join(", ")}; ${model.answered()} model calls; ${[...ledger.values()].reduce((a, b) => a + b, 0)} events`,
        );
      },
      120_000 + ROUNDS * ROUND_DEADLINE_MS,
    );
  },
);

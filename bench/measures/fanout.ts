// fanout_p95: engine emit -> socket client latency through the real server (MonitorBus -> durable
// ledger write -> MonitorHub -> Socket.IO /monitor), 200 events/s spread over 50 sessions, to 20
// clients subscribed to "*" in another process (tests/load/monitor-clients.ts). Latency = receive time
// - emit time (stage.status carries its emit time in stageStartedAt, µs precision, shared wall clock).
// Baseline: the same envelopes through a bare Socket.IO server (io.emit in a loop: no ledger, no hub),
// in phases taking turns with the engine's so that both meet the same load from other processes.
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server as SocketServer } from "socket.io";
import { MONITOR_NAMESPACE } from "../../lib/api/schemas";
import type { EventData } from "../../lib/events/schemas";
import { MonitorClients, type ClientReport } from "../../tests/load/monitor-clients";
import type { MeasureFn } from "../measure";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const RATE = 200;
const SESSIONS = 50;
const CLIENTS = 20;

const now = () => performance.timeOrigin + performance.now();

function stageEvent(i: number): { sessionId: string; data: EventData<"stage.status"> } {
  return {
    sessionId: `bench-${i % SESSIONS}`,
    data: {
      stage: "planner",
      detail: `round ${i}: thinking about the reply`,
      roundText: `${i % 6}/6`,
      agentState: "running",
      stageStartedAt: now(),
    },
  };
}

/** Calls `emit(i)` RATE times a second for `seconds`, catching up after late timer ticks. */
async function paced(seconds: number, emit: (i: number) => void, from = 0): Promise<number> {
  const started = performance.now();
  const total = RATE * seconds;
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
    for (; sent < due; sent++) emit(from + sent);
    await new Promise((r) => setTimeout(r, 2));
  }
  return from + sent;
}

interface Side {
  emit: (i: number) => void;
  emitted: number;
  latencies: number[];
}

/** "20 clients got all 4,000 events, 0 out of order, 0 resyncs" or what went wrong. */
function completeness(clients: ClientReport[], emitted: number): string {
  const got = clients.map((c) => Object.values(c.sessions).reduce((n, s) => n + s.count, 0));
  const disorder = clients.reduce((n, c) => n + Object.values(c.sessions).reduce((m, s) => m + s.outOfOrder, 0), 0);
  const resyncs = clients.reduce((n, c) => n + c.resyncs, 0);
  const complete = got.every((g) => g === emitted);
  return `${clients.length} clients got ${complete ? `all ${emitted}` : `${Math.min(...got)}-${Math.max(...got)} of ${emitted}`} events, ${disorder} out of order, ${resyncs} resyncs`;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    // Short phases, many of them: other processes' load comes and goes, and both sides should meet it alike.
    const phases = quick ? 4 : 8;
    const phaseSeconds = quick ? 1.5 : 2.5;
    const app = await startBenchServer(await tempDatabaseUrl(dir));
    const bareHttp = createServer();
    const bare = new SocketServer(bareHttp, { serveClient: false });
    await new Promise<void>((resolve) => bareHttp.listen(0, "127.0.0.1", resolve));
    const bareUrl = `http://127.0.0.1:${(bareHttp.address() as AddressInfo).port}`; // a TCP server's address is an AddressInfo
    const clients = MonitorClients.start();
    try {
      // Both sets of clients stay connected; the two sides take turns, so both see the same machine.
      await clients.connect({
        url: `${app.url}${MONITOR_NAMESPACE}`,
        token: BENCH_TOKEN,
        clients: CLIENTS,
        subscribe: { sessionId: "*" },
      });
      await clients.connect({ url: bareUrl, token: null, clients: CLIENTS, subscribe: null });
      const seqs = new Map<string, number>();
      // Where the engine side's time goes: emit -> handed to listeners (the ledger's commit) is measured
      // here, in the server's process; the rest is the hub and Socket.IO.
      const committed: number[] = [];
      let measuring = false;
      app.engine.bus.subscribe((event) => {
        if (measuring && event.type === "stage.status") committed.push(now() - event.data.stageStartedAt);
      });
      const sides: Side[] = [
        {
          emit: (i) => {
            const { sessionId, data } = stageEvent(i);
            app.engine.bus.emit(sessionId, "stage.status", data);
          },
          emitted: 0,
          latencies: [],
        },
        {
          emit: (i) => {
            const { sessionId, data } = stageEvent(i);
            const seq = (seqs.get(sessionId) ?? 0) + 1;
            seqs.set(sessionId, seq);
            bare.emit("event", { seq, sessionId, type: "stage.status", ts: Date.now(), data });
          },
          emitted: 0,
          latencies: [],
        },
      ];
      // One second each of warm-up (JIT, first writes), not counted.
      for (const side of sides) side.emitted = await paced(1, side.emit);
      for (let phase = 0; phase < phases; phase++) {
        for (const side of sides) {
          await clients.resetLatencies();
          measuring = side === sides[0];
          side.emitted = await paced(phaseSeconds, side.emit, side.emitted);
          await new Promise((r) => setTimeout(r, 300));
          side.latencies.push(...(await clients.collect()).latencies);
          measuring = false;
        }
      }
      const report = await clients.collect();
      const [engine, baseline] = sides;
      return {
        value: percentile(engine.latencies, 0.95),
        baseline: percentile(baseline.latencies, 0.95),
        note:
          `${phases} × ${phaseSeconds} s per side, taking turns, at ${RATE} events/s over ${SESSIONS} sessions to ${CLIENTS} clients; engine ${spread(engine.latencies)} (emit to committed ${spread(committed, 3)}); ` +
          `bare ${spread(baseline.latencies)}; engine side: ${completeness(report.clients.slice(0, CLIENTS), engine.emitted)}`,
      };
    } finally {
      await clients.close();
      await bare.close();
      await app.close("bench finished");
    }
  });

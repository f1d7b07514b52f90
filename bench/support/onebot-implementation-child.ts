// The OneBot side of the onebot measures in a process of its own (its own event loop, so the server
// under test keeps its own): the scripted ping-pong model endpoint, the implementation simulator on a
// reverse WebSocket sending "@bot ping-N" to each group in turn at a steady rate, and a client probing a
// bare ws echo server beside every message. Times are wall-clock ms (performance.timeOrigin + now()).
import WebSocket from "ws";
import { OneBotSimulator, seg, segmentsOf, textOf } from "../../tests/support/onebot-sim";
import { PING_PONG_MODELS, pingPongAnswer } from "../../tests/support/ping-pong-model";
import { startScriptedOpenAi } from "../../tests/support/scripted-openai";
import type { ImplementationReport, ToImplementation, FromImplementation } from "./onebot-implementation";

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const send = (message: FromImplementation) => process.send?.(message);

const replyAt = new Map<string, number>();
const model = await startScriptedOpenAi();
// Far more answers than any run takes: every request is answered from its own body.
for (let i = 0; i < 100_000; i++)
  model.enqueue((body) => {
    const step = pingPongAnswer(body);
    // The first answer for a marker: a regenerated reply would only shorten the figure.
    const pong = body.model === PING_PONG_MODELS.replyer && step.kind === "response" ? step.content : undefined;
    if (pong && !replyAt.has(pong)) replyAt.set(pong, now());
    return step;
  });

async function run(cmd: Extract<ToImplementation, { kind: "run" }>): Promise<ImplementationReport> {
  const sim = new OneBotSimulator({ selfId: cmd.selfId, heartbeatIntervalMs: 5_000 });
  const echo = new WebSocket(cmd.echoUrl);
  await new Promise<void>((resolve, reject) => echo.once("open", resolve).once("error", reject));
  const echoSamples: number[] = [];
  echo.on("message", (data) => echoSamples.push(now() - (JSON.parse(textOf(data)) as { sentAt: number }).sentAt)); // our own frame, echoed
  try {
    await sim.connectReverse({ baseUrl: cmd.wsUrl, token: cmd.token });
    const sentAt: [string, number][] = [];
    let n = 0;
    const ping = async (g: number, counted: boolean) => {
      const marker = String(n++);
      if (counted) sentAt.push([marker, now()]);
      await sim.groupMessage({
        groupId: String(20_001 + g),
        userId: "30001",
        message: [seg.at(cmd.selfId), seg.text(` ping-${marker}`)],
      });
    };
    // Warm-up, not counted: one message per group creates the sessions (get_group_info) and their first turns.
    await Promise.all(Array.from({ length: cmd.groups }, (_, g) => ping(g, false)));
    await sim
      .waitForCount((a) => a.action === "send_group_msg", cmd.groups, { timeoutMs: 60_000, what: "warm-up replies" })
      .catch(() => undefined);
    const total = cmd.rate * cmd.seconds;
    const started = performance.now();
    const sending: Promise<void>[] = [];
    for (let i = 0; i < total;) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * cmd.rate) + 1);
      for (; i < due; i++) {
        sending.push(ping(i % cmd.groups, true));
        echo.send(JSON.stringify({ sentAt: now(), pad: "x".repeat(160) }));
      }
      await sleep(2);
    }
    await Promise.all(sending);
    // The turns in flight when sending stopped.
    const counted = new Set(sentAt.map(([m]) => m));
    const answered = () =>
      sim.actionsNamed("send_group_msg").filter((a) => {
        const marker = /pong-(\d+)/.exec(frameText(a.params.message))?.[1];
        return marker !== undefined && counted.has(marker);
      }).length;
    const deadline = Date.now() + 10_000;
    let last = -1;
    while (Date.now() < deadline && answered() !== last) {
      last = answered();
      await sleep(1_000);
    }
    const frameAt: [string, number][] = [];
    for (const a of sim.actionsNamed("send_group_msg")) {
      const marker = /pong-(\d+)/.exec(frameText(a.params.message))?.[1];
      if (marker) frameAt.push([marker, a.at]);
    }
    return { sentAt, replyAt: [...replyAt], frameAt, echo: echoSamples };
  } finally {
    echo.terminate();
    await sim.close();
  }
}

function frameText(message: unknown): string {
  return segmentsOf(message)
    .map((s) => (s.type === "text" ? String(s.data.text) : ""))
    .join("");
}

process.on("message", (cmd: ToImplementation) => {
  if (cmd.kind === "run")
    run(cmd).then(
      (report) => send({ kind: "report", report }),
      (error: unknown) =>
        send({ kind: "failed", error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  else if (cmd.kind === "close") void model.close().then(() => process.exit(0));
});
send({ kind: "ready", baseURL: model.baseURL });

// OpenTelemetry: each finished cycle is pushed live (config telemetry.otlp) to an OTLP/HTTP receiver on
// loopback as a GenAI-conventions trace; GET /api/sessions/:id/otel answers the same traces as OTLP/JSON;
// a dead endpoint shows as an error state in GET /api/telemetry while the engine goes on.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telemetryStatusSchema, type TelemetryStatus } from "../../lib/api/telemetry";
import { PING_PONG_CHAT, PING_PONG_MODELS, startPingPongModel } from "../support/ping-pong-model";
import { attr, spansOf, type OtlpRequest, type OtlpSpan } from "../support/otlp-json";
import type { ScriptedOpenAi } from "../support/scripted-openai";
import { until } from "../support/until";
import { startTestServer, type TestServer } from "./support";

let model: ScriptedOpenAi;
let receiver: Server;
let receiverUrl = "";
const received: OtlpRequest[] = [];
const contentTypes: string[] = [];
let live: TestServer;
let dead: TestServer;

const chatConfig = { chat: PING_PONG_CHAT, models: PING_PONG_MODELS };
const modelEnv = () => ({
  ...process.env,
  OPENAI_BASE_URL: model.baseURL,
  OPENAI_API_KEY: "k",
  MAISAKA_MODEL: undefined,
});

beforeAll(async () => {
  model = await startPingPongModel(40);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.method === "POST") {
        contentTypes.push(String(req.headers["content-type"]));
        received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  live = await startTestServer({
    config: { ...chatConfig, telemetry: { otlp: { endpoint: receiverUrl, headers: { "x-tenant": "maisaka-test" } } } },
    env: modelEnv(),
    telemetry: { scheduledDelayMs: 50 },
  });
}, 60_000);

afterAll(async () => {
  await live?.close();
  await dead?.close();
  await model?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("live OTLP push", () => {
  let sessionId = "";

  it("sends each finished cycle as a GenAI trace with the conventions' attribute names", async () => {
    // A private chat: every message is answered, the gate asks its model (an @ would force it past).
    sessionId = await live.createSession({ name: "otel", isGroupChat: false, platform: "api", userId: "u1" });
    expect((await live.say(sessionId, "ping-1 你好")).status).toBe(202);
    await live.waitForEvent(sessionId, (e) => e.type === "message.sent", 20_000);
    const all = () => received.flatMap(spansOf);
    await until(() => all().some((s) => attr(s, "gen_ai.tool.name") === "reply"), "an execute_tool reply span", {
      timeoutMs: 15_000,
    });
    expect(contentTypes[0]).toMatch(/^application\/json/);
    const spans = all().filter((s) => attr(s, "gen_ai.conversation.id") === sessionId);
    const events = await live.events(sessionId);

    const root = spans.find((s) => attr(s, "gen_ai.operation.name") === "invoke_agent");
    if (!root) throw new Error("no invoke_agent span");
    const firstStart = events.find((e) => e.type === "cycle.start");
    expect(attr(root, "maisaka.cycle.id")).toBe(firstStart?.type === "cycle.start" ? firstStart.data.cycleId : "");
    // Recorded times, not the push's: the root starts at the cycle.start event's ts.
    expect(Number(BigInt(root.startTimeUnixNano) / 1_000_000n)).toBe(Math.floor(firstStart?.ts ?? 0));

    const chats = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat" && s.traceId === root.traceId);
    const gate = chats.find((s) => attr(s, "maisaka.task") === "timing_gate");
    const planner = chats.find((s) => attr(s, "maisaka.task") === "planner");
    for (const [span, modelName] of [
      [gate, PING_PONG_MODELS.timingGate],
      [planner, PING_PONG_MODELS.planner],
    ] as const) {
      if (!span) throw new Error(`no chat span for ${modelName}`);
      expect(span.name).toBe(`chat ${modelName}`);
      expect(span.parentSpanId).toBe(root.spanId);
      expect(attr(span, "gen_ai.request.model")).toBe(modelName);
      expect(attr(span, "gen_ai.provider.name")).toBe("openai");
      expect(attr(span, "gen_ai.system")).toBe("openai");
      expect(attr(span, "gen_ai.usage.input_tokens")).toEqual(expect.any(Number));
      expect(attr(span, "gen_ai.usage.output_tokens")).toEqual(expect.any(Number));
      expect(attr(span, "gen_ai.response.finish_reasons")).toEqual(["tool_calls"]);
      const input = JSON.parse(String(attr(span, "gen_ai.input.messages"))) as { role: string; parts: unknown[] }[];
      expect(input.length).toBeGreaterThan(0);
      expect(input[0]).toHaveProperty("parts");
      const output = JSON.parse(String(attr(span, "gen_ai.output.messages"))) as { parts: { type: string }[] }[];
      expect(output[0].parts.some((p) => p.type === "tool_call")).toBe(true);
    }

    const tool = spans.find((s) => attr(s, "gen_ai.tool.name") === "reply");
    if (!tool) throw new Error("no execute_tool span");
    expect(tool.name).toBe("execute_tool reply");
    expect(attr(tool, "gen_ai.operation.name")).toBe("execute_tool");
    const execution = events.find((e) => e.type === "tool.execution" && e.data.toolName === "reply");
    expect(attr(tool, "gen_ai.tool.call.id")).toBe(
      execution?.type === "tool.execution" ? execution.data.toolCallId : "",
    );
    expect(spans.find((s) => s.spanId === tool.parentSpanId)?.name).toMatch(/^invoke_agent /);
  });

  it("shows its state in GET /api/telemetry", async () => {
    const res = await live.api("GET", "/api/telemetry");
    const status = telemetryStatusSchema.parse(res.json);
    expect(status).toMatchObject({
      enabled: true,
      endpoint: receiverUrl,
      state: "ok",
      failedSpans: 0,
      droppedSpans: 0,
    });
    expect(status.exportedSpans).toBeGreaterThan(0);
  });

  it("answers GET /api/sessions/:id/otel as an OTLP/JSON ExportTraceServiceRequest of the same spans", async () => {
    const res = await live.api("GET", `/api/sessions/${sessionId}/otel`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = res.json as OtlpRequest;
    expect(body.resourceSpans[0].resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "maisaka" },
    });
    const spans = spansOf(body);
    const cycles = (await live.events(sessionId)).filter((e) => e.type === "cycle.end").length;
    expect(spans.filter((s) => s.name.startsWith("invoke_agent ")).length).toBe(cycles);
    // The same names and attributes as the pushed spans of this session (ids differ: built anew).
    const shape = (list: OtlpSpan[]) =>
      list
        .filter((s) => attr(s, "gen_ai.conversation.id") === sessionId)
        .map((s) => `${s.name} ${String(s.startTimeUnixNano)} ${s.attributes.map((a) => a.key).join(",")}`)
        .sort();
    // Every pushed one is there; the session may have run a cycle since, whose spans are not pushed yet.
    const pushed = shape(received.flatMap(spansOf));
    expect(pushed.length).toBeGreaterThan(0);
    expect(shape(spans)).toEqual(expect.arrayContaining(pushed));
    expect((await live.api("GET", "/api/sessions/nope/otel")).status).toBe(404);
  });
});

describe("a dead endpoint", () => {
  it("shows an error state and leaves the engine alone", async () => {
    // A port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    dead = await startTestServer({
      config: {
        ...chatConfig,
        telemetry: { otlp: { endpoint: `http://127.0.0.1:${port}/v1/traces`, timeoutMs: 2000 } },
      },
      env: modelEnv(),
      telemetry: { scheduledDelayMs: 50 },
    });
    const id = await dead.createSession({ name: "dead otel", isGroupChat: true, platform: "api" });
    expect((await dead.say(id, "ping-9 在吗", { atBot: true })).status).toBe(202);
    await dead.waitForEvent(id, (e) => e.type === "message.sent", 20_000);
    let status: TelemetryStatus | null = null;
    await until(
      async () => {
        status = telemetryStatusSchema.parse((await dead.api("GET", "/api/telemetry")).json);
        return status.state === "error";
      },
      () => `an error state (now ${JSON.stringify(status)})`,
      { timeoutMs: 15_000 },
    );
    expect(status).toMatchObject({ enabled: true, state: "error", exportedSpans: 0 });
    const seen = telemetryStatusSchema.parse(status);
    expect(seen.lastError).toBeTruthy();
    expect(seen.failedSpans).toBeGreaterThan(0);
    // The engine went on: a second turn is answered.
    expect((await dead.say(id, "ping-10 还在吗", { atBot: true })).status).toBe(202);
    await dead.waitForEvent(id, (e) => e.type === "message.sent" && e.data.content.includes("pong-10"), 20_000);
  });
});

// A rig for the fault suite: the real server (tests/server/support.ts) whose model is the openai SDK
// talking to the scripted OpenAI-compatible server, scripted per session and per task. Every request
// is routed by the session tag its messages carry (each test message includes `⟦sessionId⟧`); a
// session's scripted steps for that task are used first, then a cooperative default (the gate
// continues, the planner finishes). A "*" monitor client records the live stream, so each test can
// check that nothing acknowledged was lost: the ledger is seq 1..N, every accepted message was
// ingested, and the stream delivered exactly the ledger.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { expect } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { modelTaskSchema, type ModelTask } from "../../lib/llm/messages";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import {
  connectMonitor,
  FAST_CHAT,
  range,
  seqsOf,
  startTestServer,
  type MonitorClient,
  type TestServer,
} from "../server/support";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";
import { until } from "../support/until";

/** Model names per task: requests are routed by them. */
export const MODELS: Record<ModelTask, string> = {
  planner: "planner-model",
  timingGate: "gate-model",
  replyer: "replyer-model",
  utils: "utils-model",
};
const TASK_OF_MODEL = new Map(modelTaskSchema.options.map((task) => [MODELS[task], task]));

const DEFAULTS: Record<ModelTask, ConcreteStep> = {
  timingGate: { kind: "response", toolCalls: [{ name: "continue", arguments: {} }] },
  planner: { kind: "response", content: "这一轮先到这里。", toolCalls: [{ name: "finish", arguments: {} }] },
  replyer: { kind: "response", content: "好的。" },
  utils: { kind: "response", content: "{}" },
};

export const tag = (sessionId: string) => `⟦${sessionId}⟧`;
const TAG = /⟦([^⟧]+)⟧/;

/** Backoff waits shortened to at most 20 ms (the retry events still carry the real delay). */
function quickSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, Math.min(ms, 20));
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The scripted OpenAI-compatible server, routed per session and task. */
export interface RoutedModel {
  llm: ScriptedOpenAi;
  /** Steps for this session's next requests of this task, before the defaults. */
  script(sessionId: string, task: ModelTask, ...steps: ConcreteStep[]): void;
  /** Tasks whose request arrived for a session, in order (the scripted server saw them). */
  requestsOf(sessionId: string): ModelTask[];
}

export async function startRoutedModel(): Promise<RoutedModel> {
  const llm = await startScriptedOpenAi();
  const scripts = new Map<string, ConcreteStep[]>();
  const seen = new Map<string, ModelTask[]>();
  const route = (body: ChatCompletionCreateParams): ConcreteStep => {
    llm.enqueue(route); // one routing step always waits in the scripted server's queue
    const task = TASK_OF_MODEL.get(body.model) ?? "utils";
    const sessionId = TAG.exec(JSON.stringify(body.messages))?.[1] ?? "";
    seen.set(sessionId, [...(seen.get(sessionId) ?? []), task]);
    return scripts.get(`${sessionId}/${task}`)?.shift() ?? DEFAULTS[task];
  };
  llm.enqueue(route);
  return {
    llm,
    script(sessionId, task, ...steps) {
      const key = `${sessionId}/${task}`;
      scripts.set(key, [...(scripts.get(key) ?? []), ...steps]);
    },
    requestsOf: (sessionId) => seen.get(sessionId) ?? [],
  };
}

export interface FaultRigOptions {
  /** Sections over turns back to back (FAST_CHAT); a `chat` section given replaces that one. */
  config?: Record<string, unknown>;
  /** Per model attempt, the whole streamed response (default 2 s). */
  modelTimeoutMs?: number;
  plugins?: boolean;
  /** A migrated database (default: a fresh one). */
  databaseUrl?: string;
}

export interface FaultRig extends RoutedModel {
  server: TestServer;
  monitor: MonitorClient;
  /** Counts a message accepted outside say() (posted by the test itself) for expectIntact. */
  accept(sessionId: string, messageId: string): void;
  /** Ids of the messages accepted so far. */
  acceptedOf(sessionId: string): string[];
  /** Posts a chat message (tagged with the session) and expects it accepted; returns its id. */
  say(sessionId: string, text?: string): Promise<string>;
  /** End reasons of the session's cycles, in order (tool_continue included). */
  endsOf(sessionId: string): string[];
  /** Waits until the session has `count` cycles ending with `reason`. */
  waitForEnds(sessionId: string, reason: string, count?: number, timeoutMs?: number): Promise<void>;
  /** The session's ledger through the API. */
  ledger(sessionId: string): Promise<MonitorEvent[]>;
  /** Nothing acknowledged lost for these sessions: ledger 1..N, accepted ingested, stream = ledger. */
  expectIntact(...sessionIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultRig(opts: FaultRigOptions = {}): Promise<FaultRig> {
  const routed = await startRoutedModel();
  const { llm } = routed;
  const model = new OpenAiModelClient({
    baseURL: llm.baseURL,
    apiKey: "fault-key",
    models: MODELS,
    maxRetries: 2,
    timeoutMs: opts.modelTimeoutMs ?? 2_000,
    sleep: quickSleep,
  });
  const server = await startTestServer({
    model,
    plugins: opts.plugins,
    databaseUrl: opts.databaseUrl,
    config: { ...FAST_CHAT, ...opts.config },
  });
  const ends = new Map<string, string[]>();
  server.app.engine.bus.subscribe((e) => {
    if (e.type === "cycle.end") ends.set(e.sessionId, [...(ends.get(e.sessionId) ?? []), e.data.endReason]);
  });
  const monitor = await connectMonitor(server.url);
  await monitor.subscribe({ sessionId: "*", afterSeq: 0 });
  const accepted = new Map<string, string[]>();
  let said = 0;

  const rig: FaultRig = {
    ...routed,
    server,
    monitor,
    accept(sessionId, messageId) {
      accepted.set(sessionId, [...(accepted.get(sessionId) ?? []), messageId]);
    },
    acceptedOf: (sessionId) => accepted.get(sessionId) ?? [],
    async say(sessionId, text = "大家好，今天聊点什么？") {
      const res = await server.say(sessionId, `${tag(sessionId)} ${text}`, { messageId: `${sessionId}-m${++said}` });
      expect(res.status, res.text).toBe(202);
      const id = (res.json as { messageId: string }).messageId;
      accepted.set(sessionId, [...(accepted.get(sessionId) ?? []), id]);
      return id;
    },
    endsOf: (sessionId) => ends.get(sessionId) ?? [],
    async waitForEnds(sessionId, reason, count = 1, timeoutMs = 15_000) {
      await until(
        () => rig.endsOf(sessionId).filter((r) => r === reason).length >= count,
        () => `${sessionId}: ${count} × ${reason}; ends: ${rig.endsOf(sessionId).join(", ")}`,
        { timeoutMs },
      );
    },
    ledger: (sessionId) => server.events(sessionId),
    async expectIntact(...sessionIds) {
      await server.app.engine.bus.whenFlushed();
      for (const id of sessionIds) {
        const events = await server.events(id);
        expect(
          events.map((e) => e.seq),
          id,
        ).toEqual(range(1, events.length));
        const ingested = new Set(events.flatMap((e) => (e.type === "message.ingested" ? [e.data.messageId] : [])));
        expect(
          (accepted.get(id) ?? []).filter((m) => !ingested.has(m)),
          `${id}: accepted but not ingested`,
        ).toEqual([]);
        await monitor.waitFor((received) => seqsOf(received, id).length >= events.length);
        // A session still running may have emitted more since the ledger was read: the live stream
        // must hold every ledger event in order, then only later ones, each once.
        const live = seqsOf(monitor.events, id);
        expect(live.slice(0, events.length), `${id}: the live stream`).toEqual(events.map((e) => e.seq));
        expect(live, `${id}: the live stream, no gap or repeat`).toEqual(range(1, live.length));
      }
    },
    async close() {
      monitor.close();
      await server.close();
      await llm.close();
    },
  };
  return rig;
}

// A whole engine wired for tests: memory stores and ledger, the real OpenAiModelClient talking to a
// scripted OpenAI-compatible server on loopback, and helpers to send messages and await events.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { EmojiRecord } from "../../server/stores/emojis";
import type { SessionRecord } from "../../server/stores/sessions";
import { createEngine, type Engine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import type { Clock } from "../../server/kernel/clock";
import type { OutboundSink } from "../../server/engine/deps";
import type { Logger } from "../../server/kernel/logger";
import type { SessionRuntime } from "../../server/engine/runtime";
import { OpenAiModelClient, type OpenAiModelClientOptions } from "../../server/llm/openai-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import type { ToolProvider } from "../../server/tools/provider";
import { startScriptedOpenAi, type ScriptedOpenAi } from "./scripted-openai";
import { until } from "./until";

export interface Harness {
  engine: Engine;
  model: ScriptedOpenAi;
  events: MonitorEvent[];
  warnings: string[];
  session: SessionRecord;
  runtime: SessionRuntime;
  send(text: string, extra?: Partial<ChatMessageRecord>): Promise<ChatMessageRecord>;
  waitForEvent(predicate: (e: MonitorEvent) => boolean, timeoutMs?: number): Promise<MonitorEvent>;
  waitForIdle(timeoutMs?: number): Promise<void>;
  ofType<T extends MonitorEvent["type"]>(type: T): Extract<MonitorEvent, { type: T }>[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Record<string, unknown>;
  clock?: Clock;
  isGroupChat?: boolean;
  providers?: ToolProvider[];
  emojis?: EmojiRecord[];
  /** Where the bot's messages go (absent: local). */
  outbound?: OutboundSink;
  /** Overrides of the model client's options (endpoint kind, several endpoints), given the scripted server. */
  modelOptions?: (server: ScriptedOpenAi) => Partial<OpenAiModelClientOptions>;
  /** The live settings' version the turns name (absent: 0). */
  settingsVersion?: () => number;
}

const BASE_CONFIG = {
  // Tests run turns back to back; the cooldown is covered by its own test.
  chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0 },
};

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const model = await startScriptedOpenAi();
  const config = parseConfig(merge(BASE_CONFIG, opts.config ?? {}), "test");
  const stores = createMemoryStores({ emojis: opts.emojis });
  const warnings: string[] = [];
  const logger: Logger = {
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: (m) => void warnings.push(m),
  };
  const client = new OpenAiModelClient({
    baseURL: model.baseURL,
    apiKey: "test-key",
    models: { planner: "planner-model", timingGate: "gate-model", replyer: "replyer-model", utils: "utils-model" },
    maxRetries: 2,
    sleep: async () => undefined,
    ...opts.modelOptions?.(model),
  });
  const engine = await createEngine({
    config,
    stores,
    ledger: new MemoryLedger(),
    clock: opts.clock,
    logger,
    model: client,
    outbound: opts.outbound,
    settingsVersion: opts.settingsVersion,
  });
  engine.providers.push(...(opts.providers ?? []));
  const events: MonitorEvent[] = [];
  engine.bus.subscribe((e) => events.push(e));
  const isGroupChat = opts.isGroupChat ?? true;
  const now = Date.now();
  const session: SessionRecord = {
    id: "s1",
    name: "test chat",
    isGroupChat,
    platform: "test",
    groupId: isGroupChat ? "g1" : null,
    userId: isGroupChat ? null : "u1",
    createdAt: now,
    lastActiveAt: now,
  };
  const runtime = await engine.manager.getOrCreate(session);
  let counter = 0;

  const waitForEvent = (predicate: (e: MonitorEvent) => boolean, timeoutMs = 5_000) =>
    until(
      () => events.find(predicate),
      () => `the event; got: ${events.map((e) => e.type).join(", ")}`,
      { timeoutMs, intervalMs: 5 },
    );

  return {
    engine,
    model,
    events,
    warnings,
    session,
    runtime,
    async send(text, extra = {}) {
      counter++;
      const message: ChatMessageRecord = {
        sessionId: session.id,
        messageId: `m${counter}`,
        direction: "inbound",
        userId: "u1",
        userName: "Alice",
        text,
        ts: engine.clock.now(),
        ...extra,
      };
      await runtime.registerMessage(message);
      return message;
    },
    waitForEvent,
    async waitForIdle(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      let streak = 0;
      while (streak < 3) {
        if (Date.now() > deadline) throw new Error("runtime did not become idle");
        await new Promise((r) => setTimeout(r, 5));
        streak = runtime.isIdle() ? streak + 1 : 0;
      }
      await engine.bus.whenFlushed();
    },
    ofType<T extends MonitorEvent["type"]>(type: T) {
      return events.filter((e): e is Extract<MonitorEvent, { type: T }> => e.type === type);
    },
    async close() {
      await engine.close("test finished");
      await model.close();
    },
  };
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && prev && typeof prev === "object" && !Array.isArray(prev)
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

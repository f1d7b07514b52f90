// The HeartflowManager (docs/engine-rules.md#session-runtime): one runtime per session, capped with least-recently-used idle
// runtimes stopped first, one creation per id under concurrency, and restart recovery from the
// saved snapshot (history, pending messages, an armed wait that still fires).
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { createEngine, type Engine } from "../../server/composition";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import type { SessionRecord } from "../../server/stores/sessions";
import { FakeClock, settle } from "../support/fake-clock";
import { startHarness, type Harness } from "../support/engine-harness";
import { until } from "../support/until";

let h: Harness | undefined;
let second: Engine | null = null;
afterEach(async () => {
  await second?.close("test finished");
  second = null;
  await h?.close();
  h = undefined;
});

function sessionRecord(id: string, isGroupChat = true): SessionRecord {
  return {
    id,
    name: `chat ${id}`,
    isGroupChat,
    platform: "test",
    groupId: isGroupChat ? `g-${id}` : null,
    userId: isGroupChat ? null : "u1",
    createdAt: 0,
    lastActiveAt: 0,
  };
}

const stopsOf = (events: MonitorEvent[], sessionId: string) =>
  events.filter((e) => e.type === "session.stop" && e.sessionId === sessionId);
const startsOf = (events: MonitorEvent[], sessionId: string) =>
  events.filter((e) => e.type === "session.start" && e.sessionId === sessionId);

const waitCall = (seconds: number) => ({
  kind: "response" as const,
  content: "她还没说完",
  toolCalls: [{ id: "w1", name: "wait", arguments: { seconds } }],
});
const noAction = { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };

describe("runtime cap (chat.maxRuntimes 2)", () => {
  it("creating a third session stops the least recently used idle one", async () => {
    h = await startHarness({ clock: new FakeClock(), config: { chat: { maxRuntimes: 2 } } });
    const { manager } = h.engine;
    const s2 = await manager.getOrCreate(sessionRecord("s2"));
    expect(manager.list().map((r) => r.session.id)).toEqual(["s1", "s2"]);
    const s3 = await manager.getOrCreate(sessionRecord("s3"));
    await h.engine.bus.whenFlushed();

    expect(manager.get("s1")).toBeUndefined();
    expect(h.runtime.isStopped).toBe(true);
    expect(manager.list().map((r) => r.session.id)).toEqual(["s2", "s3"]);
    expect(s2.isStopped).toBe(false);
    expect(s3.isStopped).toBe(false);
    const stops = stopsOf(h.events, "s1");
    expect(stops).toHaveLength(1);
    expect(stops[0].type === "session.stop" && stops[0].data.reason).toMatch(/evict/);
    expect(stopsOf(h.events, "s2")).toHaveLength(0);
  });

  it("a touched runtime survives; the next least recently used one goes", async () => {
    h = await startHarness({ clock: new FakeClock(), config: { chat: { maxRuntimes: 2 } } });
    const { manager } = h.engine;
    const s2 = await manager.getOrCreate(sessionRecord("s2"));
    expect(await manager.getOrCreate(h.session)).toBe(h.runtime); // touch s1
    await manager.getOrCreate(sessionRecord("s3"));
    await h.engine.bus.whenFlushed();

    expect(manager.list().map((r) => r.session.id)).toEqual(["s1", "s3"]);
    expect(h.runtime.isStopped).toBe(false);
    expect(s2.isStopped).toBe(true);
    expect(stopsOf(h.events, "s2")).toHaveLength(1);
    expect(stopsOf(h.events, "s1")).toHaveLength(0);
  });

  it("a runtime in wait is not evicted", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { maxRuntimes: 2 } } });
    h.model.enqueue(waitCall(30));
    await h.send("我想跟你说件事…");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    expect(h.runtime.agentState).toBe("wait");

    const { manager } = h.engine;
    const s2 = await manager.getOrCreate(sessionRecord("s2"));
    await manager.getOrCreate(sessionRecord("s3"));
    await h.engine.bus.whenFlushed();
    expect(h.runtime.isStopped).toBe(false);
    expect(s2.isStopped).toBe(true);
    expect(manager.list().map((r) => r.session.id)).toEqual(["s1", "s3"]);

    // Its wait still fires.
    h.model.enqueue(noAction);
    await clock.advance(30_000);
    await until(() => h!.model.requests.length === 2, "the wait's timeout turn");
  });

  it("the runtime just created is never the one stopped, even when nothing else is idle", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { maxRuntimes: 1 } } });
    h.model.enqueue(waitCall(30));
    await h.send("等一下…");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    expect(h.runtime.agentState).toBe("wait");

    const s2 = await h.engine.manager.getOrCreate(sessionRecord("s2"));
    await h.engine.bus.whenFlushed();
    expect(s2.isStopped).toBe(false);
    expect(h.runtime.isStopped).toBe(false);
    expect(h.engine.manager.list()).toHaveLength(2);
    expect(h.warnings.join("\n")).toMatch(/over the cap/);
    // And it serves its message.
    h.model.enqueue(noAction);
    await s2.registerMessage({
      sessionId: "s2",
      messageId: "x1",
      direction: "inbound",
      userId: "u2",
      userName: "Bob",
      text: "有人吗",
      ts: clock.now(),
    });
    await until(() => h!.model.requests.length === 2, "s2's gate request");
  });

  it("an evicted session's state comes back on its next use", async () => {
    h = await startHarness({ clock: new FakeClock(), config: { chat: { maxRuntimes: 1 } } });
    h.model.enqueue(noAction);
    await h.send("记住这句话");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    const history = structuredClone(h.runtime.history);
    expect(history.length).toBeGreaterThan(0);

    await h.engine.manager.getOrCreate(sessionRecord("s2"));
    expect(h.runtime.isStopped).toBe(true);
    const back = await h.engine.manager.getOrCreate(h.session);
    expect(back).not.toBe(h.runtime);
    expect(back.history).toEqual(history);
  });
});

describe("getOrCreate", () => {
  it("concurrent calls for one id create one runtime", async () => {
    h = await startHarness({ clock: new FakeClock() });
    const record = sessionRecord("s9");
    const all = await Promise.all([1, 2, 3, 4].map(() => h!.engine.manager.getOrCreate(record)));
    await h.engine.bus.whenFlushed();
    expect(new Set(all).size).toBe(1);
    expect(startsOf(h.events, "s9")).toHaveLength(1);
    expect(h.engine.manager.list().filter((r) => r.session.id === "s9")).toHaveLength(1);
    expect(await h.engine.stores.sessions.get("s9")).toMatchObject({ id: "s9", name: "chat s9" });
  });
});

describe("snapshot and restore", () => {
  it("history, pending messages and the wait deadline survive a restart; the armed wait still fires", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false });
    h.model.enqueue(waitCall(30));
    await h.send("我想跟你说件事…");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    const deadline = h.runtime.waitDeadline;
    expect(deadline).toBe(clock.now() + 30_000);
    await h.send("就是那个");
    await clock.advance(10_000);
    await settle();
    expect(h.model.requests).toHaveLength(1);

    const history = structuredClone(h.runtime.history);
    const cycles = h.runtime.cycleCounter;
    await h.engine.manager.stopAll("restart");
    await h.engine.bus.whenFlushed();
    expect(stopsOf(h.events, "s1").map((e) => e.type === "session.stop" && e.data.reason)).toEqual(["restart"]);

    // A new process: new manager, bus and model client over the same stores.
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    second = await createEngine({
      config: h.engine.config,
      stores: h.engine.stores,
      ledger: new MemoryLedger(),
      clock,
      logger,
      model: new OpenAiModelClient({
        baseURL: h.model.baseURL,
        apiKey: "test-key",
        models: { planner: "planner-model", timingGate: "gate-model", replyer: "replyer-model", utils: "utils-model" },
        maxRetries: 0,
      }),
    });
    const events: MonitorEvent[] = [];
    second.bus.subscribe((e) => events.push(e));
    expect(await second.manager.restoreAll()).toBe(1);
    const rt = second.manager.get("s1");
    if (!rt) throw new Error("s1 not restored");
    expect(rt).not.toBe(h.runtime);
    expect(rt.history).toEqual(history);
    expect(rt.pendingMessages().map((m) => [m.messageId, m.text])).toEqual([["m2", "就是那个"]]);
    expect(rt.agentState).toBe("wait");
    expect(rt.waitDeadline).toBe(deadline);
    expect(rt.cycleCounter).toBe(cycles);

    // The wait fires at its original deadline, not 30 s after the restart.
    h.model.enqueue(noAction);
    await clock.advance(19_999);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.model.requests).toHaveLength(1);
    await clock.advance(1);
    await until(() => events.some((e) => e.type === "cycle.end"), "the restored wait's turn");
    expect(h.model.requests).toHaveLength(2);
    const gate = h.model.requests[1].body.messages;
    const waitResult = gate.find((m) => m.role === "tool" && m.tool_call_id === "w1");
    expect(waitResult?.content).toBe("等待结束：有新的输入到达。");
    expect(JSON.stringify(gate)).toContain("就是那个");
    expect(JSON.stringify(gate)).toContain("我想跟你说件事…");
    const end = events.find((e) => e.type === "cycle.end");
    expect(end?.type === "cycle.end" && end.data.endReason).toBe("timing_no_action");
  });

  it("restoreAll skips sessions with nothing pending and no wait", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock });
    h.model.enqueue(noAction);
    await h.send("普通的一句");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    await h.engine.manager.stopAll("restart");
    second = await createEngine({
      config: h.engine.config,
      stores: h.engine.stores,
      ledger: new MemoryLedger(),
      clock,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      model: new OpenAiModelClient({ baseURL: h.model.baseURL, apiKey: "k", maxRetries: 0 }),
    });
    expect(await second.manager.restoreAll()).toBe(0);
    expect(second.manager.list()).toHaveLength(0);
  });
});

describe("stopping a runtime", () => {
  const outcome = (p: Promise<void>) =>
    Promise.race([p.then(() => "stopped"), new Promise<string>((r) => setTimeout(() => r("still waiting"), 2_000))]);

  it("does not sit out the no_action cooldown", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: 8 } } });
    h.model.enqueue(noAction);
    await h.send("随便聊聊");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await until(() => h!.runtime.stage.name === "cooldown", "the cooldown");
    expect(await outcome(h.runtime.stop("shutdown"))).toBe("stopped");
    await h.engine.bus.whenFlushed();
    expect(stopsOf(h.events, "s1")).toHaveLength(1);
  });

  it("does not sit out a debounce", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 30 } } });
    h.model.enqueue({ ...noAction, delayMs: 200 });
    await h.send("一");
    await h.model.waitForRequest(0);
    await h.send("二"); // arrives during the run: the next collection debounces 30 s
    await h.waitForEvent((e) => e.type === "cycle.end");
    await until(
      () => h!.ofType("stage.status").filter((e) => e.data.stage === "collecting").length === 2,
      "the debounce",
    );
    expect(await outcome(h.runtime.stop("shutdown"))).toBe("stopped");
    expect(h.model.requests).toHaveLength(1);
  });
});

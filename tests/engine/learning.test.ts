// Learning: messages trimmed out of the window go through the utils model, and what it extracts
// lands in the jargon, memory and person stores; malformed output is ignored.
import { until } from "../support/until";
import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "../../server/engine/context/messages";
import { SessionLearner } from "../../server/engine/learning";
import { parseConfig } from "../../server/config/load";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { createMemoryStores } from "../../server/stores/memory";
import { startScriptedOpenAi } from "../support/scripted-openai";
import { startHarness } from "../support/engine-harness";

const chat = (n: number, text: string, userName = "Alice"): HistoryMessage => ({
  kind: "session",
  uid: `u${n}`,
  ts: n * 1000,
  messageId: `m${n}`,
  userId: userName.toLowerCase(),
  userName,
  text,
  sourceKind: "user",
});

async function learnerWith(answer: string) {
  const model = await startScriptedOpenAi();
  model.enqueue({ kind: "response", content: answer });
  const stores = createMemoryStores();
  const client = new OpenAiModelClient({
    baseURL: model.baseURL,
    apiKey: "k",
    models: { planner: "p", utils: "utils-model" },
    sleep: async () => undefined,
    usageStore: stores.usage,
  });
  const learner = new SessionLearner("s1", {
    model: client,
    stores,
    config: parseConfig({}, "test"),
    clock: { now: () => 42, setTimer: () => ({ cancel: () => undefined }) },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  return { model, stores, learner };
}

describe("learning", () => {
  it("stores extracted jargon, memories and person facts", async () => {
    const { model, stores, learner } = await learnerWith(
      '好的：```json\n{"jargon":[{"word":"yyds","meaning":"永远的神"}],"memories":["Alice 下周去杭州出差"],"persons":[{"name":"Alice","summary":"爱旅行的程序员","traits":["健谈"],"facts":["住在上海"]}]}\n```',
    );
    await learner.learnTrimmed([chat(1, "这家店yyds"), chat(2, "我下周去杭州出差"), chat(3, "我住上海")]);
    const request = model.requests[0].body;
    expect(request.model).toBe("utils-model");
    // Learning runs between cycles: its call counts for the session, in no cycle.
    expect(stores.usage.list()).toEqual([
      expect.objectContaining({ task: "utils", model: "utils-model", sessionId: "s1", cycleId: null, success: true }),
    ]);
    expect(JSON.stringify(request.messages)).toContain("我下周去杭州出差");
    expect((await stores.jargon.findExact("YYDS", 5))[0]).toMatchObject({ word: "yyds", meaning: "永远的神" });
    expect((await stores.memories.search({ query: "杭州", mode: "search", limit: 5 }))[0].content).toBe(
      "Alice 下周去杭州出差",
    );
    expect(await stores.persons.find("alice")).toMatchObject({
      summary: "爱旅行的程序员",
      traits: ["健谈"],
      facts: ["住在上海"],
    });
    await model.close();
  });

  it("records each write with the messages it came from and what it replaced (the learned feed)", async () => {
    const { model, stores, learner } = await learnerWith(
      '{"jargon":[{"word":"yyds","meaning":"永远的神"}],"memories":["Alice 下周去杭州出差"],"persons":[{"name":"Alice","summary":"新的概要","traits":["健谈"],"facts":[]}]}',
    );
    const old = await stores.jargon.upsert({ word: "YYDS", meaning: "旧的含义", sessionId: "s1" });
    const alice = await stores.persons.upsert({
      personName: "Alice",
      userId: "u9",
      summary: "旧",
      traits: [],
      facts: [],
    });
    await learner.learnTrimmed([chat(1, "这家店yyds"), chat(2, "我下周去杭州出差"), chat(3, "我住上海")]);
    const items = await stores.learned.page({ limit: 10 });
    const byKind = Object.fromEntries(items.map((i) => [i.kind, i]));
    const common = { sessionId: "s1", sourceMessageIds: ["m1", "m2", "m3"], ts: 42, undoneAt: null };
    expect(byKind.jargon).toMatchObject({
      ...common,
      action: "updated",
      targetId: old.id,
      before: { meaning: "旧的含义" },
      after: { meaning: "永远的神", version: 2 },
      afterVersion: 2,
    });
    expect(byKind.memory).toMatchObject({
      ...common,
      action: "created",
      before: null,
      after: { content: "Alice 下周去杭州出差" },
    });
    expect(byKind.person).toMatchObject({
      ...common,
      action: "updated",
      targetId: alice.personId,
      before: { summary: "旧" },
      after: { summary: "新的概要", userId: "u9" },
    });
    expect(items).toHaveLength(3);
    await model.close();
  });

  it("ignores malformed output and skips batches with too little chat", async () => {
    const { model, stores, learner } = await learnerWith("I cannot do that");
    await learner.learnTrimmed([chat(1, "只有一句")]);
    expect(model.requests).toHaveLength(0);
    await learner.learnTrimmed([chat(1, "a"), chat(2, "b"), chat(3, "c")]);
    expect(model.requests).toHaveLength(1);
    expect(await stores.jargon.list()).toEqual([]);
    expect(await stores.memories.list()).toEqual([]);
    await model.close();
  });

  it("runs when the history is trimmed past twice the window", async () => {
    const h = await startHarness({ config: { chat: { maxContextSize: 3 } } });
    try {
      const answer = (body: { model: string }) =>
        body.model === "utils-model"
          ? { kind: "response" as const, content: '{"jargon":[],"memories":["大家在闲聊"],"persons":[]}' }
          : { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
      for (let i = 0; i < 4; i++) {
        h.model.enqueue(answer, answer);
        await h.send(`第 ${i} 条闲聊`);
        await h.waitForEvent(() => h.ofType("cycle.end").length > i);
      }
      await h.waitForIdle();
      const learned = h.model.requests.filter((r) => r.body.model === "utils-model");
      expect(learned).toHaveLength(1);
      expect(JSON.stringify(learned[0].body.messages)).toContain("第 0 条闲聊");
      expect((await h.engine.stores.memories.list()).map((m) => m.content)).toEqual(["大家在闲聊"]);
    } finally {
      await h.close();
    }
  });

  it("learns each full batch of chat still in the window once", async () => {
    const h = await startHarness({ config: { chat: { learningBatchMessages: 3, learningIdleSeconds: 0 } } });
    try {
      const answer = (body: { model: string }) =>
        body.model === "utils-model"
          ? { kind: "response" as const, content: '{"jargon":[],"memories":["一批闲聊"],"persons":[]}' }
          : { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
      for (let i = 0; i < 7; i++) {
        h.model.enqueue(answer, answer);
        await h.send(`第 ${i} 条`);
        await h.waitForEvent(() => h.ofType("cycle.end").length > i);
      }
      await h.waitForIdle();
      const batches = await until(() => {
        const found = h.model.requests.filter((r) => r.body.model === "utils-model");
        return found.length >= 2 ? found.map((r) => JSON.stringify(r.body.messages)) : null;
      }, "two learning batches");
      expect(batches).toHaveLength(2);
      expect(batches[0]).toContain("第 0 条");
      expect(batches[0]).not.toContain("第 3 条");
      expect(batches[1]).toContain("第 3 条");
      expect(batches[1]).not.toContain("第 0 条");
      expect(batches[1]).not.toContain("第 6 条");
    } finally {
      await h.close();
    }
  });

  it("does not learn messages again when they are trimmed out of the window, nor after a restore", async () => {
    const { model, learner } = await learnerWith('{"jargon":[],"memories":[],"persons":[]}');
    const window = [chat(1, "一"), chat(2, "二"), chat(3, "三")];
    await learner.learnFromWindow(window, { idle: true });
    expect(model.requests).toHaveLength(1);
    const saved = learner.learnedIds();
    await learner.learnTrimmed(window);
    expect(model.requests).toHaveLength(1);
    const { model: model2, learner: restored } = await learnerWith('{"jargon":[],"memories":[],"persons":[]}');
    restored.restore(saved);
    await restored.learnFromWindow([chat(4, "四"), chat(5, "五"), ...window], { idle: true });
    expect(model2.requests).toHaveLength(0);
    await model.close();
    await model2.close();
  });

  it("learns a short chat once the session has been quiet for learningIdleSeconds", async () => {
    const h = await startHarness({ config: { chat: { learningBatchMessages: 50, learningIdleSeconds: 0.2 } } });
    try {
      const answer = (body: { model: string }) =>
        body.model === "utils-model"
          ? {
              kind: "response" as const,
              content: '{"jargon":[{"word":"yyds","meaning":"永远的神"}],"memories":[],"persons":[]}',
            }
          : { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
      for (let i = 0; i < 3; i++) {
        h.model.enqueue(answer, answer);
        await h.send(`yyds 第 ${i} 次`);
        await h.waitForEvent(() => h.ofType("cycle.end").length > i);
      }
      await until(async () => (await h.engine.stores.jargon.list()).length === 1, "the quiet session's learning");
      const learned = h.model.requests.filter((r) => r.body.model === "utils-model");
      expect(learned).toHaveLength(1);
      expect(JSON.stringify(learned[0].body.messages)).toContain("yyds 第 0 次");
    } finally {
      await h.close();
    }
  });

  it("a failing learning call is visible in the session's timeline (llm.retry, then llm.error)", async () => {
    const h = await startHarness({ config: { chat: { learningBatchMessages: 50, learningIdleSeconds: 0.1 } } });
    try {
      const answer = (body: { model: string }) =>
        body.model === "utils-model"
          ? { kind: "error" as const, status: 500 }
          : { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
      for (let i = 0; i < 3; i++) {
        h.model.enqueue(answer, answer, answer, answer);
        await h.send(`闲聊 ${i}`);
        await h.waitForEvent(() => h.ofType("cycle.end").length > i);
      }
      const error = await h.waitForEvent((e) => e.type === "llm.error");
      expect(error.data).toMatchObject({ task: "utils" });
      expect(h.ofType("llm.retry").some((e) => e.data.task === "utils")).toBe(true);
    } finally {
      await h.close();
    }
  });
});

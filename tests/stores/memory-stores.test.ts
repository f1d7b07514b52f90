import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../server/stores/memory";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { MemoryQuery } from "../../server/stores/memories";
import { usageRecord } from "../support/usage-record";

function message(messageId: string, ts: number, extra: Partial<ChatMessageRecord> = {}): ChatMessageRecord {
  return {
    sessionId: "s1",
    messageId,
    direction: "inbound",
    userId: "u1",
    userName: "Alice",
    text: messageId,
    ts,
    ...extra,
  };
}

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("memory message store", () => {
  it("gets and lists per session, oldest first, limit keeping the newest", async () => {
    const { messages } = createMemoryStores();
    await messages.save(message("b", 20));
    await messages.save(message("a", 10));
    await messages.save(message("c", 20));
    await messages.save(message("x", 5, { sessionId: "s2" }));
    expect((await messages.list("s1")).map((m) => m.messageId)).toEqual(["a", "b", "c"]);
    expect((await messages.list("s1", { limit: 2 })).map((m) => m.messageId)).toEqual(["b", "c"]);
    expect(await messages.list("s1", { limit: 0 })).toEqual([]);
    expect(await messages.get("s1", "x")).toBeNull();
    expect((await messages.get("s2", "x"))?.ts).toBe(5);
  });

  it("upserts by id and returns copies", async () => {
    const { messages } = createMemoryStores();
    const original = message("a", 10, { forward: [{ sender: "B", text: "hi" }] });
    await messages.save(original);
    original.text = "mutated after save";
    const fetched = await messages.get("s1", "a");
    expect(fetched?.text).toBe("a");
    fetched!.forward![0].text = "mutated copy";
    expect((await messages.get("s1", "a"))?.forward?.[0].text).toBe("hi");
    await messages.save(message("a", 10, { text: "edited" }));
    expect((await messages.list("s1")).map((m) => m.text)).toEqual(["edited"]);
  });
});

describe("memory emoji store", () => {
  it("is seeded from the constructor argument and records uses", async () => {
    const seed = [{ id: "e1", file: "a.png", description: "开心", emotions: ["happy"] }];
    const { emojis } = createMemoryStores({ emojis: seed });
    seed[0].description = "changed";
    const listed = await emojis.list();
    expect(listed).toEqual([{ id: "e1", file: "a.png", description: "开心", emotions: ["happy"] }]);
    listed[0].emotions.push("x");
    expect((await emojis.list())[0].emotions).toEqual(["happy"]);
    await emojis.recordUse("e1");
    await emojis.recordUse("e1");
    await emojis.recordUse("ghost");
    expect(emojis.useCount("e1")).toBe(2);
    expect(emojis.useCount("ghost")).toBe(0);
  });

  it("starts empty without a seed", async () => {
    expect(await createMemoryStores().emojis.list()).toEqual([]);
  });
});

describe("memory jargon store", () => {
  async function seeded() {
    const c = clock();
    const stores = createMemoryStores({ now: c.now });
    const { jargon } = stores;
    await jargon.upsert({ word: "YYDS", meaning: "永远的神", sessionId: null });
    c.advance(10);
    await jargon.upsert({ word: "yyds吧", meaning: "变体", sessionId: "s1" });
    c.advance(10);
    await jargon.upsert({ word: "yy", meaning: "歪歪", sessionId: null });
    await jargon.upsert({ word: "yyds", meaning: "别群", sessionId: "s2" });
    return { jargon, c };
  }

  it("matches exactly, case-insensitively, within the session and global entries", async () => {
    const { jargon } = await seeded();
    expect((await jargon.findExact("yYdS", 5, "s1")).map((e) => e.meaning)).toEqual(["永远的神"]);
    expect((await jargon.findExact("yyds", 5)).map((e) => e.meaning).sort()).toEqual(["别群", "永远的神"].sort());
    expect(await jargon.findExact("yyds", 0, "s1")).toEqual([]);
  });

  it("matches fuzzily in both directions, excluding exact matches", async () => {
    const { jargon } = await seeded();
    const fuzzy = await jargon.findFuzzy("yyds", 5, "s1");
    // "yyds吧" contains the word; "yy" is contained in it; "YYDS" is exact and excluded.
    expect(fuzzy.map((e) => e.word).sort()).toEqual(["yy", "yyds吧"].sort());
    expect(await jargon.findFuzzy("", 5)).toEqual([]);
    expect(await jargon.findFuzzy("yyds", 1, "s1")).toHaveLength(1);
  });

  it("upserts by word and scope: meaning replaced, count and time bumped", async () => {
    const { jargon, c } = await seeded();
    c.advance(100);
    const updated = await jargon.upsert({ word: "yyDS", meaning: "新解释", sessionId: null });
    expect(updated).toMatchObject({ word: "YYDS", meaning: "新解释", count: 2, updatedAt: 1_120 });
    expect((await jargon.list()).length).toBe(4);
    expect((await jargon.list({ limit: 1 }))[0].meaning).toBe("新解释");
  });

  it("removes by id", async () => {
    const { jargon } = await seeded();
    const [first] = await jargon.list();
    expect(await jargon.remove(first.id)).toBe(true);
    expect(await jargon.remove(first.id)).toBe(false);
    expect(await jargon.list()).toHaveLength(3);
  });
});

describe("memory memory store", () => {
  async function seeded() {
    const { memories } = createMemoryStores();
    await memories.add({ sessionId: null, personName: "Alice", content: "Alice 喜欢猫，也喜欢 Cat 咖啡", ts: 100 });
    await memories.add({ sessionId: "s1", personName: null, content: "周末爬山，Alice 带了猫 猫", ts: 200 });
    await memories.add({ sessionId: "s1", personName: "Bob", content: "Bob 讨厌下雨", ts: 300 });
    await memories.add({ sessionId: "s2", personName: null, content: "别的群的猫", ts: 400 });
    return memories;
  }
  const q = (extra: Partial<MemoryQuery>): MemoryQuery => ({ mode: "search", limit: 10, ...extra });

  it("requires every term, case-insensitively, ranked by hits then recency", async () => {
    const memories = await seeded();
    const hits = await memories.search(q({ query: "猫 alice", sessionId: "s1" }));
    // "周末…" has 猫 twice + Alice once (3 hits); "Alice 喜欢猫…" has 猫 once + Alice once (2 hits).
    expect(hits.map((m) => m.ts)).toEqual([200, 100]);
    expect((await memories.search(q({ query: "cat" }))).map((m) => m.ts)).toEqual([100]);
    expect(await memories.search(q({ query: "猫 下雨" }))).toEqual([]);
  });

  it("keeps other sessions out when a session is given", async () => {
    const memories = await seeded();
    expect((await memories.search(q({ query: "猫", sessionId: "s1" }))).map((m) => m.ts)).not.toContain(400);
    expect((await memories.search(q({ query: "猫" }))).map((m) => m.ts)).toContain(400);
  });

  it("filters by person and time bounds, honouring the limit", async () => {
    const memories = await seeded();
    expect((await memories.search(q({ query: "猫", personName: "alice" }))).map((m) => m.ts)).toEqual([100]);
    expect((await memories.search(q({ query: "猫", timeStart: 150, timeEnd: 400 }))).map((m) => m.ts)).toEqual([
      200, 400,
    ]);
    expect(await memories.search(q({ query: "猫", limit: 1 }))).toHaveLength(1);
  });

  it("returns time-bounded entries newest first in time mode, ignoring the query", async () => {
    const memories = await seeded();
    const byTime = await memories.search(q({ mode: "time", query: "不相关", timeStart: 100, timeEnd: 300 }));
    expect(byTime.map((m) => m.ts)).toEqual([300, 200, 100]);
  });

  it("uses search semantics for the other modes and without a query lists newest first", async () => {
    const memories = await seeded();
    for (const mode of ["episode", "aggregate", "hybrid"] as const) {
      expect((await memories.search(q({ mode, query: "bob" }))).map((m) => m.ts)).toEqual([300]);
    }
    expect((await memories.search(q({ timeStart: 200 }))).map((m) => m.ts)).toEqual([400, 300, 200]);
  });

  it("lists newest first, removes by id and returns copies", async () => {
    const memories = await seeded();
    const listed = await memories.list({ limit: 2 });
    expect(listed.map((m) => m.ts)).toEqual([400, 300]);
    listed[0].content = "mutated";
    expect((await memories.list())[0].content).toBe("别的群的猫");
    expect(await memories.remove(listed[0].id)).toBe(true);
    expect(await memories.remove(listed[0].id)).toBe(false);
    expect(await memories.list()).toHaveLength(3);
  });
});

describe("memory person store", () => {
  it("finds by id, by name case-insensitively, or by user id", async () => {
    const c = clock();
    const { persons } = createMemoryStores({ now: c.now });
    const alice = await persons.upsert({ personName: "Alice", userId: "qq-1", summary: "s", traits: ["t"], facts: [] });
    expect((await persons.find(alice.personId))?.personName).toBe("Alice");
    expect((await persons.find(" alice "))?.personId).toBe(alice.personId);
    expect((await persons.find("qq-1"))?.personId).toBe(alice.personId);
    expect(await persons.find("bob")).toBeNull();
    expect(await persons.find("")).toBeNull();
  });

  it("upserts by id, else by user id or name, and lists the newest first", async () => {
    const c = clock();
    const { persons } = createMemoryStores({ now: c.now });
    const alice = await persons.upsert({ personName: "Alice", userId: "qq-1", summary: "v1", traits: [], facts: [] });
    c.advance(5);
    await persons.upsert({ personName: "Bob", userId: null, summary: "b", traits: [], facts: [] });
    c.advance(5);
    const renamed = await persons.upsert({
      personName: "Alicia",
      userId: "qq-1",
      summary: "v2",
      traits: [],
      facts: [],
    });
    expect(renamed.personId).toBe(alice.personId);
    expect(renamed.updatedAt).toBe(1_010);
    c.advance(5);
    const bob2 = await persons.upsert({ personName: "BOB", userId: null, summary: "b2", traits: [], facts: [] });
    expect((await persons.list()).map((p) => p.summary)).toEqual(["b2", "v2"]);
    const explicit = await persons.upsert({
      personId: "p-x",
      personName: "Carol",
      userId: null,
      summary: "",
      traits: [],
      facts: [],
    });
    expect(explicit.personId).toBe("p-x");
    expect(await persons.list({ limit: 1 })).toHaveLength(1);
    expect(bob2.personName).toBe("BOB");
  });

  it("returns copies", async () => {
    const { persons } = createMemoryStores();
    const p = await persons.upsert({ personName: "A", userId: null, summary: "", traits: ["x"], facts: [] });
    p.traits.push("y");
    expect((await persons.find("A"))?.traits).toEqual(["x"]);
  });
});

describe("memory tool record store", () => {
  it("records with an id and lists per session, oldest first, limit keeping the newest", async () => {
    const { toolRecords } = createMemoryStores();
    const base = {
      cycleId: "c1",
      callId: "call",
      toolName: "reply",
      providerName: "maisaka_builtin",
      providerType: "builtin",
      arguments: { msg_id: "m1" },
      success: true,
      content: "ok",
      errorMessage: "",
      reasoning: "",
      durationMs: 3,
    };
    await toolRecords.record({ ...base, sessionId: "s1", ts: 2 });
    await toolRecords.record({ ...base, sessionId: "s1", ts: 1, toolName: "wait" });
    await toolRecords.record({ ...base, sessionId: "s2", ts: 3 });
    const listed = await toolRecords.list("s1");
    expect(listed.map((r) => r.toolName)).toEqual(["wait", "reply"]);
    expect(listed.every((r) => typeof r.id === "string" && r.id.length > 0)).toBe(true);
    expect(new Set(listed.map((r) => r.id)).size).toBe(2);
    expect((await toolRecords.list("s1", { limit: 1 })).map((r) => r.toolName)).toEqual(["reply"]);
    listed[0].arguments.msg_id = "changed";
    expect((await toolRecords.list("s1"))[0].arguments).toEqual({ msg_id: "m1" });
  });
});

describe("memory toggle store", () => {
  it("sets toggles with an audit entry holding the old value, newest audit first", async () => {
    const { toggles } = createMemoryStores();
    const first = await toggles.set(
      { toolName: "reply", scope: "global", sessionId: null, enabled: false },
      { id: "op-id", name: "op" },
      "noisy",
      10,
    );
    expect(first).toMatchObject({
      toolName: "reply",
      enabled: false,
      oldEnabled: null,
      actor: "op",
      actorId: "op-id",
      reason: "noisy",
      ts: 10,
    });
    const second = await toggles.set(
      { toolName: "reply", scope: "global", sessionId: null, enabled: true },
      { id: "op-id", name: "op" },
      "",
      20,
    );
    expect(second.oldEnabled).toBe(false);
    await toggles.set(
      { toolName: "reply", scope: "session", sessionId: "s1", enabled: false },
      { id: "op2-id", name: "op2" },
      "",
      30,
    );
    expect(await toggles.list()).toEqual([
      { toolName: "reply", scope: "global", sessionId: null, enabled: true },
      { toolName: "reply", scope: "session", sessionId: "s1", enabled: false },
    ]);
    const audit = await toggles.audit();
    expect(audit.map((a) => a.ts)).toEqual([30, 20, 10]);
    expect(audit[0].oldEnabled).toBeNull();
    expect(new Set(audit.map((a) => a.id)).size).toBe(3);
    expect(await toggles.audit({ limit: 1 })).toHaveLength(1);
  });

  it("keeps a global toggle's sessionId null", async () => {
    const { toggles } = createMemoryStores();
    await toggles.set(
      { toolName: "x", scope: "global", sessionId: "s1", enabled: false },
      { id: "op-id", name: "op" },
      "",
      1,
    );
    expect(await toggles.list()).toEqual([{ toolName: "x", scope: "global", sessionId: null, enabled: false }]);
  });
});

describe("memory usage store", () => {
  it("records model usage", async () => {
    const { usage } = createMemoryStores();
    const rec = usageRecord({ promptTokens: 1, completionTokens: 2, latencyMs: 3, ts: 4 });
    await usage.record(rec);
    expect(usage.list()).toEqual([rec]);
  });
});

describe("memory session store", () => {
  const session = (id: string, lastActiveAt: number) => ({
    id,
    name: id,
    isGroupChat: true,
    platform: "qq",
    groupId: "g1",
    userId: null,
    createdAt: 1,
    lastActiveAt,
  });

  it("upserts, gets, lists the most recently active first and touches", async () => {
    const { sessions } = createMemoryStores();
    await sessions.upsert(session("a", 10));
    await sessions.upsert(session("b", 20));
    expect((await sessions.list()).map((s) => s.id)).toEqual(["b", "a"]);
    await sessions.touch("a", 30);
    await sessions.touch("ghost", 40);
    expect((await sessions.list()).map((s) => s.id)).toEqual(["a", "b"]);
    expect(await sessions.get("ghost")).toBeNull();
    await sessions.upsert({ ...session("a", 30), name: "renamed" });
    const fetched = await sessions.get("a");
    expect(fetched?.name).toBe("renamed");
    fetched!.name = "mutated";
    expect((await sessions.get("a"))?.name).toBe("renamed");
  });

  it("keeps the latest runtime snapshot per session, as a copy", async () => {
    const { sessions } = createMemoryStores();
    expect(await sessions.loadSnapshot("a")).toBeNull();
    const state = { history: ["m1"] };
    await sessions.saveSnapshot({ sessionId: "a", state, ts: 1 });
    state.history.push("mutated");
    await sessions.saveSnapshot({ sessionId: "b", state: { history: [] }, ts: 1 });
    expect(await sessions.loadSnapshot("a")).toEqual({ sessionId: "a", state: { history: ["m1"] }, ts: 1 });
    await sessions.saveSnapshot({ sessionId: "a", state: { history: ["m1", "m2"] }, ts: 2 });
    expect((await sessions.loadSnapshot("a"))?.ts).toBe(2);
  });
});

describe("createMemoryStores", () => {
  it("uses the injected id source and keeps stores independent", async () => {
    let n = 0;
    const a = createMemoryStores({ newId: (prefix) => `${prefix}#${++n}` });
    const b = createMemoryStores();
    const entry = await a.memories.add({ sessionId: null, personName: null, content: "x", ts: 1 });
    expect(entry.id).toBe("memory#1");
    expect(await b.memories.list()).toEqual([]);
  });
});

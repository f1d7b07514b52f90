import { describe, expect, it } from "vitest";
import type { ToolExecutionContext } from "../../lib/tools/schemas";
import { parseTime } from "../../server/tools/builtin/args";
import { BuiltinToolProvider } from "../../server/tools/builtin/provider";
import { sample } from "../../server/tools/builtin/send-emoji";
import type { EmojiRecord } from "../../server/stores/emojis";
import { invocation } from "../support/tool-invocation";
import { FakeHost, spec, userMessage } from "./fake-host";

const ctx: ToolExecutionContext = {
  sessionId: "s1",
  streamId: "s1",
  reasoning: "Alice 在打招呼，回应一下",
  isGroupChat: true,
  metadata: {},
};

function setup(opts: ConstructorParameters<typeof FakeHost>[0] = {}) {
  const host = new FakeHost(opts);
  const provider = new BuiltinToolProvider(host, { random: () => 0 });
  const run = (name: string, args: Record<string, unknown> = {}) => provider.invoke(invocation(name, args), ctx);
  return { host, provider, run };
}

function emojis(n: number): EmojiRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `e${i}`,
    file: `e${i}.png`,
    description: `表情${i}`,
    emotions: ["开心"],
  }));
}

describe("timing tools", () => {
  it("continue succeeds with timingAction continue and does not pause", async () => {
    const result = await setup().run("continue");
    expect(result.success).toBe(true);
    expect(result.metadata).toEqual({ timingAction: "continue" });
  });

  it("no_action pauses with timingAction no_action", async () => {
    const result = await setup().run("no_action");
    expect(result.success).toBe(true);
    expect(result.metadata).toEqual({ timingAction: "no_action", pauseExecution: true });
  });

  it("wait pauses with the requested seconds", async () => {
    const result = await setup().run("wait", { seconds: 12 });
    expect(result.content).toBe("等待 12 秒");
    expect(result.metadata).toEqual({ timingAction: "wait", waitSeconds: 12, pauseExecution: true });
  });

  it("wait falls back to 30 for invalid input and clamps below zero", async () => {
    const { run } = setup();
    expect((await run("wait", { seconds: "soon" })).metadata.waitSeconds).toBe(30);
    expect((await run("wait", {})).metadata.waitSeconds).toBe(30);
    expect((await run("wait", { seconds: -5 })).metadata.waitSeconds).toBe(0);
    expect((await run("wait", { seconds: "15" })).metadata.waitSeconds).toBe(15);
  });
});

describe("finish", () => {
  it("pauses and marks finish", async () => {
    const result = await setup().run("finish");
    expect(result.success).toBe(true);
    expect(result.metadata).toEqual({ pauseExecution: true, finish: true });
  });
});

describe("reply", () => {
  it("writes the reply from the reasoning, sends it quoting the target and reports it", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1", { userName: "Alice", text: "早上好" }));
    const result = await run("reply", { msg_id: "m1", set_quote: true, reference_info: "Alice 是老朋友" });
    expect(result.success).toBe(true);
    expect(result.content).toBe('"麦麦"已生成并向"Alice"发送了回复"好的呀"');
    expect(result.metadata.pauseExecution).toBeUndefined();
    expect(host.replyRequests[0]).toMatchObject({
      sessionId: "s1",
      reasoning: "Alice 在打招呼，回应一下",
      referenceInfo: "Alice 是老朋友",
      target: { messageId: "m1", text: "早上好" },
    });
    expect(host.sent).toEqual([{ sessionId: "s1", text: "好的呀", replyTo: "m1", kind: "text", atUserId: "u1" }]);
    expect(result.structuredContent).toEqual({
      msgId: "m1",
      setQuote: true,
      replyText: "好的呀",
      targetUserName: "Alice",
      sentMessageId: "bot-1",
    });
  });

  it("does not quote when set_quote is false, and uses the configured bot nickname", async () => {
    const { host, run } = setup({ config: { bot: { nickname: "小麦" } } });
    await host.stores.messages.save(userMessage("m1"));
    const result = await run("reply", { msg_id: "m1", set_quote: false });
    expect(host.sent[0].replyTo).toBeNull();
    expect(result.content).toBe('"小麦"已生成并向"Alice"发送了回复"好的呀"');
    expect(host.replyRequests[0].referenceInfo).toBeUndefined();
  });

  it("quotes by default when set_quote is absent", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1"));
    await run("reply", { msg_id: "m1" });
    expect(host.sent[0].replyTo).toBe("m1");
  });

  it("fails clearly for an unknown msg_id without writing or sending", async () => {
    const { host, run } = setup();
    const result = await run("reply", { msg_id: "ghost" });
    expect(result.success).toBe(false);
    expect(result.errorMessage).toContain("msg_id=ghost");
    expect(host.replyRequests).toHaveLength(0);
    expect(host.sent).toHaveLength(0);
  });

  it("only finds messages of its own session", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1", { sessionId: "other" }));
    expect((await run("reply", { msg_id: "m1" })).success).toBe(false);
  });

  it("fails, naming the error, when the platform did not take the reply", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1"));
    host.deliveryError = "send_group_msg timed out";
    const result = await run("reply", { msg_id: "m1" });
    expect(result.success).toBe(false);
    expect(result.errorMessage).toContain("send_group_msg timed out");
    expect(result.errorMessage).toContain("没有收到");
  });

  it("fails without sending when the replyer writes nothing", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1"));
    host.replyText = "   ";
    const result = await run("reply", { msg_id: "m1" });
    expect(result.success).toBe(false);
    expect(host.sent).toHaveLength(0);
  });
});

describe("send_emoji", () => {
  it("fails when the library is empty", async () => {
    const result = await setup().run("send_emoji");
    expect(result.success).toBe(false);
    expect(result.errorMessage).toContain("表情包库为空");
  });

  it("offers at most 25 candidates, sends the chosen one and records its use", async () => {
    const { host, run } = setup({ emojis: emojis(40) });
    host.emojiChoice = { index: 2, reason: "气氛轻松" };
    const result = await run("send_emoji");
    const candidates = host.emojiRequests[0].candidates;
    expect(candidates).toHaveLength(25);
    expect(new Set(candidates.map((c) => c.id)).size).toBe(25);
    expect(host.emojiRequests[0].reasoning).toBe(ctx.reasoning);
    const chosen = candidates[2];
    expect(host.sent).toEqual([
      { sessionId: "s1", text: `[表情包] ${chosen.description}`, replyTo: null, kind: "emoji", emojiFile: chosen.file },
    ]);
    expect(host.stores.emojis.useCount(chosen.id)).toBe(1);
    expect(result).toMatchObject({ success: true, content: "气氛轻松" });
    expect(result.structuredContent).toMatchObject({ emojiId: chosen.id, sentMessageId: "bot-1" });
  });

  it("fails without recording a use when the platform did not take the emoji", async () => {
    const { host, run } = setup({ emojis: emojis(1) });
    host.deliveryError = "rate limited";
    const result = await run("send_emoji");
    expect(result.success).toBe(false);
    expect(result.errorMessage).toContain("rate limited");
    expect(host.stores.emojis.useCount("e0")).toBe(0);
  });

  it("falls back to the first candidate for an out-of-range index and to a default content", async () => {
    const { host, run } = setup({ emojis: emojis(3) });
    host.emojiChoice = { index: 7, reason: "" };
    const result = await run("send_emoji");
    expect(host.sent[0].text).toBe("[表情包] 表情0");
    expect(result.content).toBe("表情包发送成功");
  });

  it("samples without replacement", () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const picked = sample([...Array(100).keys()], 25, random);
    expect(picked).toHaveLength(25);
    expect(new Set(picked).size).toBe(25);
    expect(sample([1, 2], 25, random)).toEqual([1, 2]);
  });
});

describe("query_jargon", () => {
  it("dedupes words, finds exact then fuzzy matches (at most 5 each) and answers JSON", async () => {
    const { host, run } = setup();
    const { jargon } = host.stores;
    await jargon.upsert({ word: "YYDS", meaning: "永远的神", sessionId: null });
    await jargon.upsert({ word: "yyds吧", meaning: "变体", sessionId: null });
    await jargon.upsert({ word: "别的群的梗", meaning: "不该出现", sessionId: "other" });
    for (let i = 0; i < 7; i++) await jargon.upsert({ word: `绝绝子${i}`, meaning: `m${i}`, sessionId: "s1" });

    const result = await run("query_jargon", { words: ["yyds", " yyds ", "绝绝子", "不存在", "别的群的梗"] });
    expect(result.success).toBe(true);
    const parsed = JSON.parse(result.content) as { results: { word: string; found: boolean; matches: unknown[] }[] };
    expect(parsed.results.map((r) => r.word)).toEqual(["yyds", "绝绝子", "不存在", "别的群的梗"]);
    expect(parsed.results[0]).toEqual({
      word: "yyds",
      found: true,
      matches: [
        { word: "YYDS", meaning: "永远的神" },
        { word: "yyds吧", meaning: "变体" },
      ],
    });
    expect(parsed.results[1].matches).toHaveLength(5);
    expect(parsed.results[2]).toEqual({ word: "不存在", found: false, matches: [] });
    expect(parsed.results[3].found).toBe(false);
    expect(result.content).toContain("永远的神"); // non-ASCII kept, not \u-escaped
  });

  it("fails when no usable word is given", async () => {
    const result = await setup().run("query_jargon", { words: ["  "] });
    expect(result.success).toBe(false);
  });
});

describe("query_memory", () => {
  async function seeded() {
    const s = setup();
    const { memories } = s.host.stores;
    await memories.add({
      sessionId: null,
      personName: "Alice",
      content: "Alice 喜欢猫",
      ts: new Date(2026, 0, 1, 9, 0).getTime(),
    });
    await memories.add({
      sessionId: "s1",
      personName: null,
      content: "大家约好周末去爬山",
      ts: new Date(2026, 0, 2, 20, 30).getTime(),
    });
    await memories.add({
      sessionId: "other",
      personName: null,
      content: "别的群说猫很可爱",
      ts: new Date(2026, 0, 3).getTime(),
    });
    return s;
  }

  it("needs a query or a time bound", async () => {
    const result = await setup().run("query_memory", { mode: "search" });
    expect(result.success).toBe(false);
    expect(result.errorMessage).toContain("query");
  });

  it("searches memories of this session and global ones, listing their time", async () => {
    const { run } = await seeded();
    const result = await run("query_memory", { query: "猫" });
    expect(result.success).toBe(true);
    expect(result.content).toContain("找到 1 条相关记忆");
    expect(result.content).toContain("[2026-01-01 09:00]");
    expect(result.content).toContain("Alice 喜欢猫");
    expect(result.content).not.toContain("别的群");
    expect(result.structuredContent).toMatchObject({ mode: "search", limit: 5, items: [{ content: "Alice 喜欢猫" }] });
  });

  it("filters by time with lenient formats", async () => {
    const { run } = await seeded();
    const result = await run("query_memory", { mode: "time", time_start: "2026-01-02", time_end: "2026-01-02 23:00" });
    expect(result.content).toContain("周末去爬山");
    expect(result.content).not.toContain("猫");
    const bad = await run("query_memory", { time_start: "yesterday-ish" });
    expect(bad.success).toBe(false);
    expect(bad.errorMessage).toContain("time_start");
    const reversed = await run("query_memory", { time_start: "2026-01-03", time_end: "2026-01-01" });
    expect(reversed.success).toBe(false);
  });

  it("filters by person and falls back to a plain search with a note", async () => {
    const { run } = await seeded();
    const byPerson = await run("query_memory", { query: "猫", person_name: "alice" });
    expect(byPerson.content).toContain("Alice 喜欢猫");
    const fallback = await run("query_memory", { query: "爬山", person_name: "Bob" });
    expect(fallback.content).toContain("没有找到与 Bob 直接相关的记忆");
    expect(fallback.content).toContain("周末去爬山");
  });

  it("says so when nothing matches", async () => {
    const { run } = await seeded();
    const result = await run("query_memory", { query: "火星" });
    expect(result).toMatchObject({ success: true, content: "没有找到相关记忆。" });
    expect(result.structuredContent).toMatchObject({ items: [] });
  });
});

describe("query_person_profile", () => {
  async function seeded() {
    const s = setup();
    await s.host.stores.persons.upsert({
      personName: "Alice",
      userId: "u1",
      summary: "爱猫的程序员",
      traits: Array.from({ length: 12 }, (_, i) => `特征${i}`),
      facts: ["住在上海"],
    });
    return s;
  }

  it("returns summary, traits up to the limit and facts", async () => {
    const { run } = await seeded();
    const result = await run("query_person_profile", { person_name: "alice" });
    expect(result.success).toBe(true);
    expect(result.content).toContain("爱猫的程序员");
    expect(result.content).toContain("特征7");
    expect(result.content).not.toContain("特征8");
    expect(result.content).toContain("住在上海");
    expect(result.structuredContent).toMatchObject({ personName: "Alice", limit: 8, facts: ["住在上海"] });
    const limited = await run("query_person_profile", { person_id: "u1", limit: 2 });
    expect((limited.structuredContent as { traits: string[] }).traits).toEqual(["特征0", "特征1"]);
  });

  it("needs a name or an id, and fails clearly when nobody is found", async () => {
    const { run } = await seeded();
    const missing = await run("query_person_profile", {});
    expect(missing.success).toBe(false);
    expect(missing.errorMessage).toContain("person_name");
    const nobody = await run("query_person_profile", { person_name: "Bob" });
    expect(nobody.success).toBe(false);
    expect(nobody.errorMessage).toContain("Bob");
  });
});

describe("view_complex_message", () => {
  it("returns the full forwarded content as sender：text lines", async () => {
    const { host, run } = setup();
    const forward = Array.from({ length: 6 }, (_, i) => ({ sender: `用户${i}`, text: `第${i}条` }));
    await host.stores.messages.save(userMessage("f1", { text: "[转发消息]", forward }));
    const result = await run("view_complex_message", { message_id: "f1" });
    expect(result.success).toBe(true);
    expect(result.content.split("\n")).toEqual(forward.map((m) => `${m.sender}：${m.text}`));
    expect(result.structuredContent).toMatchObject({ messageId: "f1", messageType: "forward", count: 6 });
  });

  it("fails for a plain or unknown message", async () => {
    const { host, run } = setup();
    await host.stores.messages.save(userMessage("m1"));
    expect((await run("view_complex_message", { message_id: "m1" })).success).toBe(false);
    expect((await run("view_complex_message", { message_id: "nope" })).success).toBe(false);
  });
});

describe("tool_search", () => {
  function withPool() {
    const s = setup();
    s.host.deferred = [
      spec("weather_now", "current weather"),
      spec("weather_forecast", "weather in the coming days"),
      spec("translate", "translate text"),
    ];
    return s;
  }

  it("lists matches as '- name' lines with a note on what is new", async () => {
    const { host, run } = withPool();
    host.discovered = new Set(["weather_now"]);
    const result = await run("tool_search", { query: "weather", limit: 5 });
    expect(result.success).toBe(true);
    const lines = result.content.split("\n");
    // Equal scores: ordered by name.
    expect(lines.filter((l) => l.startsWith("- "))).toEqual(["- weather_forecast", "- weather_now"]);
    expect(result.content).toContain("本次新发现：weather_forecast");
    expect(result.content).toContain("此前已发现：weather_now");
    expect(result.structuredContent).toEqual({
      query: "weather",
      matchedToolNames: ["weather_forecast", "weather_now"],
      newlyDiscoveredToolNames: ["weather_forecast"],
    });
  });

  it("respects the limit", async () => {
    const { run } = withPool();
    const result = await run("tool_search", { query: "weather", limit: 1 });
    expect(result.structuredContent).toMatchObject({ matchedToolNames: ["weather_forecast"] });
  });

  it("succeeds with an explanatory sentence when nothing matches", async () => {
    const { run } = withPool();
    const result = await run("tool_search", { query: "database" });
    expect(result.success).toBe(true);
    expect(result.content).toContain("no deferred tool matched");
    expect(result.structuredContent).toEqual({ query: "database", matchedToolNames: [], newlyDiscoveredToolNames: [] });
  });

  it("fails for a blank query", async () => {
    const { run } = withPool();
    expect((await run("tool_search", { query: "  " })).success).toBe(false);
  });
});

describe("parseTime", () => {
  it("reads local date-times, dates and ISO strings", () => {
    expect(parseTime("2026-01-02 08:30")).toBe(new Date(2026, 0, 2, 8, 30).getTime());
    expect(parseTime("2026/1/2")).toBe(new Date(2026, 0, 2).getTime());
    expect(parseTime("2026-01-02", true)).toBe(new Date(2026, 0, 2, 23, 59, 59, 999).getTime());
    expect(parseTime("2026-01-02T08:30:00Z")).toBe(Date.UTC(2026, 0, 2, 8, 30));
    expect(parseTime("2026-02-31")).toBeNull();
    expect(parseTime("2026-01-02 25:00")).toBeNull();
    expect(parseTime("not a date")).toBeNull();
  });
});

import { afterEach, describe, expect, it } from "vitest";
import type { LlmMessage } from "../../lib/llm/messages";
import type { LlmToolDefinition } from "../../lib/tools/schemas";
import { parseConfig } from "../../server/config/load";
import type { HistoryMessage } from "../../server/engine/context/messages";
import { SessionLearner } from "../../server/engine/learning";
import { buildPromptVars } from "../../server/engine/prompt-vars";
import { renderPrompt, type Locale } from "../../server/engine/prompts/templates";
import type { ChatRequest, ChatResponse } from "../../server/llm/model-client";
import { createSimulatedModelClient, handleChatCompletion } from "../../server/llm/simulated";
import { createMemoryStores } from "../../server/stores/memory";

const client = createSimulatedModelClient();

const tools = (...names: string[]): LlmToolDefinition[] =>
  names.map((name) => ({
    type: "function",
    function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
  }));

const chatLine = (userName: string, msgId: string, text: string, groupCard?: string): LlmMessage => ({
  role: "user",
  content: [
    "[时间]12:00:00",
    `[用户名]${userName}`,
    ...(groupCard ? [`[用户群昵称]${groupCard}`] : []),
    `[msg_id]${msgId}`,
    `[发言内容]${text}`,
  ].join("\n"),
});

const GROUP_GATE = "你是麦麦的节奏判断子代理，只负责决定现在是否要进入思考和行动。这是一个群聊。";
const PRIVATE_GATE = "你是麦麦的节奏判断子代理，只负责决定现在是否要进入思考和行动。这是一个私聊。";
const PLANNER = "你的名字是麦麦。\n你正在一个群聊里聊天。";
const REPLYER = "你的名字是麦麦。\n你正在一个群聊里聊天，现在要回复下面这条消息。";

async function gate(text: string, system = GROUP_GATE): Promise<ChatResponse> {
  return client.chat({
    task: "timingGate",
    messages: [{ role: "system", content: system }, chatLine("Alice", "m1", text)],
    tools: tools("continue", "no_action", "wait"),
  });
}

const toolName = (res: ChatResponse): string => res.toolCalls[0]?.function.name ?? "";
const toolArgs = (res: ChatResponse): unknown => JSON.parse(res.toolCalls[0]?.function.arguments ?? "null");

describe("SIMULATED model: timing gate", () => {
  it.each([
    ["the bot's nickname", "麦麦今天吃什么"],
    ["an @", "@全体成员 开会了"],
    ["a question mark", "有人知道这个吗？"],
    ["an English question", "how does this work"],
  ])("continues when addressed by %s", async (_why, text) => {
    const res = await gate(text);
    expect(toolName(res)).toBe("continue");
    expect(res.content).not.toBe("");
    expect(res.toolCalls).toHaveLength(1);
  });

  it("stays out with no_action when not addressed", async () => {
    const res = await gate("今天天气不错");
    expect(toolName(res)).toBe("no_action");
    expect(res.content).not.toBe("");
  });

  it("waits 30 s when the message looks unfinished", async () => {
    for (const text of ["我跟你说…", "然后呢，", "so basically..."]) {
      const res = await gate(text);
      expect(toolName(res)).toBe("wait");
      expect(toolArgs(res)).toEqual({ seconds: 30 });
    }
  });

  it("waits on a lone filler word in a private chat, but not in a group", async () => {
    expect(toolName(await gate("嗯", PRIVATE_GATE))).toBe("wait");
    expect(toolName(await gate("嗯", GROUP_GATE))).toBe("no_action");
  });

  it("does not answer its own message", async () => {
    const res = await client.chat({
      task: "timingGate",
      messages: [
        { role: "system", content: GROUP_GATE },
        chatLine("Alice", "m1", "麦麦？"),
        chatLine("麦麦", "m2", "怎么啦？"),
      ],
      tools: tools("continue", "no_action", "wait"),
    });
    expect(toolName(res)).toBe("no_action");
  });

  it("reads the nickname from the engine's own prompt templates", async () => {
    const vars = { nickname: "小蓝", aliasText: "", personality: "", chatKind: "群聊", chatKindRule: "", waitRule: "" };
    for (const locale of ["zh-CN", "en"] as const) {
      const system = renderPrompt("maisaka_timing_gate", vars, { locale });
      expect(toolName(await gate("小蓝在干嘛", system))).toBe("continue");
      expect(toolName(await gate("麦麦在干嘛", system))).toBe("no_action");
    }
  });
});

/** An assistant call of `tool` and its result, as the planner's history holds them. */
function lookedUp(tool: string, args: Record<string, unknown>, result: string, id = "c9"): LlmMessage[] {
  return [
    {
      role: "assistant",
      content: "先查一下",
      tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
    },
    { role: "tool", tool_call_id: id, content: result },
  ];
}

// Result texts exactly as the builtin tools write them (server/tools/builtin).
const JARGON_FOUND = JSON.stringify({
  results: [{ word: "yyds", found: true, matches: [{ word: "yyds", meaning: "永远的神" }] }],
});
const JARGON_MISSING = JSON.stringify({ results: [{ word: "xyzzy", found: false, matches: [] }] });

function plannerRequest(history: LlmMessage[], offered = tools("reply", "finish", "send_emoji")): ChatRequest {
  return {
    task: "planner",
    messages: [
      { role: "system", content: PLANNER },
      ...history,
      { role: "user", content: "当前时间：2026-01-01 12:00:00" },
    ],
    tools: offered,
  };
}

describe("SIMULATED model: planner", () => {
  it("replies to the newest user message's msg_id", async () => {
    const res = await client.chat(
      plannerRequest([chatLine("Alice", "m1", "早上好"), chatLine("Bob", "m2", "麦麦你觉得呢", "小B")]),
    );
    expect(toolName(res)).toBe("reply");
    expect(toolArgs(res)).toEqual({ msg_id: "m2" });
    expect(res.content).toContain("Bob");
  });

  it("finishes once it has replied this turn", async () => {
    const res = await client.chat(
      plannerRequest([
        chatLine("Alice", "m1", "麦麦你好"),
        {
          role: "assistant",
          content: "回复一下",
          tool_calls: [{ id: "c1", type: "function", function: { name: "reply", arguments: '{"msg_id":"m1"}' } }],
        },
        { role: "tool", tool_call_id: "c1", content: "已回复：你好呀" },
      ]),
    );
    expect(toolName(res)).toBe("finish");
  });

  it("finishes when there is nothing to answer", async () => {
    const res = await client.chat(plannerRequest([]));
    expect(toolName(res)).toBe("finish");
  });

  it.each([
    ["query_jargon", "麦麦，yyds是什么意思？", { words: ["yyds"] }],
    ["query_person_profile", "谁是小明？", { person_name: "小明" }],
    ["query_memory", "麦麦你还记得我的生日吗", { query: "我的生日", mode: "search", limit: 5 }],
    ["tool_search", "帮我查一下北京天气", { query: "北京天气", limit: 5 }],
    ["tool_search", "can you search for typescript tutorials", { query: "typescript tutorials", limit: 5 }],
  ])("looks things up with %s when asked to", async (tool, text, args) => {
    const offered = tools("reply", "finish", "query_jargon", "query_person_profile", "query_memory", "tool_search");
    const res = await client.chat(plannerRequest([chatLine("Alice", "m7", text)], offered));
    expect(toolName(res)).toBe(tool);
    expect(toolArgs(res)).toEqual(args);
  });

  it("falls back to tool_search when the fitting query tool is not offered", async () => {
    const offered = tools("reply", "finish", "tool_search");
    const res = await client.chat(plannerRequest([chatLine("Alice", "m7", "what does yyds mean?")], offered));
    expect(toolName(res)).toBe("tool_search");
    expect(toolArgs(res)).toEqual({ query: "yyds", limit: 5 });
  });

  it("replies with what the lookup found once it has a result, in plain words", async () => {
    const res = await client.chat(
      plannerRequest(
        [chatLine("Alice", "m7", "yyds是什么意思？"), ...lookedUp("query_jargon", { words: ["yyds"] }, JARGON_FOUND)],
        tools("reply", "finish", "query_jargon"),
      ),
    );
    expect(toolName(res)).toBe("reply");
    const args = toolArgs(res) as { msg_id: string; reference_info: string };
    expect(args.msg_id).toBe("m7");
    expect(args.reference_info).toContain("永远的神");
    expect(args.reference_info).not.toMatch(/[{}]|"results"|matches/);
  });

  it("gives tool calls ids that differ between requests", async () => {
    const a = await client.chat(plannerRequest([chatLine("Alice", "m1", "你好")]));
    const b = await client.chat(plannerRequest([chatLine("Alice", "m2", "你好")]));
    expect(a.toolCalls[0].id).not.toBe(b.toolCalls[0].id);
  });
});

describe("SIMULATED model: replyer and utils", () => {
  const reply = (text: string, extra: LlmMessage[] = []): Promise<ChatResponse> =>
    client.chat({
      task: "replyer",
      messages: [{ role: "system", content: REPLYER }, chatLine("Alice", "m1", text), ...extra],
    });

  it("greets back in the user's language", async () => {
    expect((await reply("你好呀")).content).toBe("你好呀Alice！");
    expect((await reply("hello everyone")).content).toBe("Hi Alice!");
  });

  it("answers a question briefly and honestly", async () => {
    expect((await reply("量子计算是什么？")).content).toMatch(/不太确定|不太清楚/);
    expect((await reply("what is quantum computing?")).content).toMatch(/not sure/i);
  });

  it("uses reference information when there is some", async () => {
    const res = await reply("yyds是什么意思？", [{ role: "user", content: "参考信息：yyds 是“永远的神”的缩写" }]);
    expect(res.content).toContain("永远的神");
  });

  it("always says something", async () => {
    expect((await reply("今天好热")).content.length).toBeGreaterThan(0);
    expect((await reply("")).content.length).toBeGreaterThan(0);
  });

  it("picks an emoji as JSON", async () => {
    const res = await client.chat({
      task: "utils",
      messages: [
        {
          role: "system",
          content: '根据聊天的气氛选一个表情包。只输出 JSON：{"emoji_index": 序号, "reason": "理由"}\n1. 笑脸\n2. 哭脸',
        },
        chatLine("Alice", "m1", "哈哈哈笑死我了"),
      ],
    });
    expect(JSON.parse(res.content)).toEqual({ emoji_index: 1, reason: "大家聊得很开心" });
  });

  it("extracts conservatively as JSON", async () => {
    const res = await client.chat({
      task: "utils",
      messages: [
        { role: "system", content: '提取信息，只输出 JSON：{"jargon":[],"memories":[],"persons":[]}' },
        { role: "user", content: "Alice: 我下周去北京" },
      ],
    });
    expect(JSON.parse(res.content)).toEqual({ jargon: [], memories: [], persons: [] });
  });
});

describe("SIMULATED model: wire behaviour", () => {
  it("is deterministic: the same request gives the same answer", async () => {
    const offered = tools("reply", "finish", "query_person_profile");
    const request = plannerRequest([chatLine("Alice", "m1", "麦麦，谁是小明？")], offered);
    const { durationMs: _a, ...first } = await client.chat(request);
    const { durationMs: _b, ...second } = await client.chat(request);
    expect(second).toEqual(first);
  });

  it("labels itself SIMULATED and reports estimated usage", async () => {
    const res = await gate("麦麦？");
    expect(res.model).toBe("SIMULATED");
    expect(res.usage.promptTokens).toBeGreaterThan(0);
    expect(res.usage.totalTokens).toBe(res.usage.promptTokens + res.usage.completionTokens);
    expect(client.info()).toEqual({ provider: "simulated", name: "SIMULATED", simulated: true });
    expect(client.modelFor("replyer")).toBe("SIMULATED");
  });

  it("streams OpenAI-style SSE ending with a usage chunk and [DONE]", async () => {
    const body = {
      model: "SIMULATED",
      stream: true,
      messages: [{ role: "system", content: GROUP_GATE }, chatLine("Alice", "m1", "麦麦在吗")],
      tools: tools("continue", "no_action", "wait"),
    };
    const text = await handleChatCompletion(body).text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, "")) as Record<string, unknown>);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(chunks.at(-2)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });
    expect(chunks.every((c) => c.model === "SIMULATED" && c.object === "chat.completion.chunk")).toBe(true);
  });

  it("answers non-streamed requests with one chat.completion and rejects bad bodies", async () => {
    const ok = handleChatCompletion({
      model: "SIMULATED",
      messages: [{ role: "system", content: REPLYER }, chatLine("Bob", "m1", "thanks!")],
    });
    expect(await ok.json()).toMatchObject({
      object: "chat.completion",
      model: "SIMULATED",
      choices: [{ message: { role: "assistant", content: "You're welcome!" }, finish_reason: "stop" }],
    });
    const bad = handleChatCompletion({ model: "SIMULATED", messages: "nope" });
    expect(bad.status).toBe(400);
  });
});

/** The replyer request exactly as the engine builds it (session-host.ts), in the bot's locale. */
function replyerRequest(opts: {
  target: { name: string; text: string };
  transcript?: string[];
  reference?: string;
  locale?: Locale;
}): ChatRequest {
  const locale = opts.locale ?? "zh-CN";
  const config = parseConfig({ bot: { locale } }, "test");
  const prompts = { locale };
  const lines = [...(opts.transcript ?? []), `${opts.target.name}: ${opts.target.text}`];
  const parts = [
    renderPrompt("replyer_transcript", { transcript: lines.map((l) => `[12:00:00] ${l}`).join("\n") }, prompts),
    renderPrompt("replyer_target", { target: `[msg_id]m9 ${opts.target.name}: ${opts.target.text}` }, prompts),
    renderPrompt("replyer_thoughts", { reasoning: "回复一下" }, prompts),
    ...(opts.reference ? [renderPrompt("replyer_reference", { reference: opts.reference }, prompts)] : []),
  ];
  return {
    task: "replyer",
    messages: [
      { role: "system", content: renderPrompt("maisaka_replyer", buildPromptVars(config, true), prompts) },
      { role: "user", content: parts.join("\n\n") },
    ],
  };
}

const ALL_LOOKUPS = tools("reply", "finish", "query_jargon", "query_person_profile", "query_memory", "tool_search");

/** The planner's reference_info after `tool` answered `result`, then the replyer's reply with it. */
async function lookupThenReply(question: string, tool: string, result: string): Promise<[string, string]> {
  const planned = await client.chat(
    plannerRequest([chatLine("Alice", "m7", question), ...lookedUp(tool, {}, result)], ALL_LOOKUPS),
  );
  expect(toolName(planned)).toBe("reply");
  const reference = (toolArgs(planned) as { reference_info?: string }).reference_info ?? "";
  const replied = await client.chat(replyerRequest({ target: { name: "Alice", text: question }, reference }));
  return [reference, replied.content];
}

describe("SIMULATED model: tool results in plain words", () => {
  const RAW = /[{}[\]]|"results"|"matches"|person_id|deferred|★/;

  it.each([
    ["query_jargon (found)", "yyds是什么意思？", "query_jargon", JARGON_FOUND, /yyds.*永远的神/],
    [
      "query_jargon (not found)",
      "xyzzy是什么意思？",
      "query_jargon",
      JARGON_MISSING,
      /xyzzy.*(不认识|不知道|没查到)|(不认识|不知道).*xyzzy/,
    ],
    [
      "query_memory (found)",
      "麦麦你还记得我的生日吗",
      "query_memory",
      "找到 1 条相关记忆：\n1. [2026-01-01 12:00]（关于 Alice） Alice 的生日是三月五号",
      /Alice 的生日是三月五号/,
    ],
    [
      "query_memory (none)",
      "麦麦你还记得我的生日吗",
      "query_memory",
      "没有找到相关记忆。",
      /不记得|没有相关的记忆|没什么印象/,
    ],
    [
      "query_person_profile (found)",
      "谁是小明？",
      "query_person_profile",
      "人物：小明（person_id: p1）\n概要：爱打篮球的高中生\n特征：\n- 开朗\n已知事实：\n- 住在北京",
      /小明.*爱打篮球的高中生.*开朗.*住在北京/,
    ],
    ["query_person_profile (missing)", "谁是小明？", "query_person_profile", "没有找到 小明 的人物画像。", /小明/],
    [
      "tool_search (found)",
      "帮我查一下北京天气",
      "tool_search",
      "找到 1 个 deferred tools，它们会在后续轮次中加入可用工具列表：\n- weather_lookup\n本次新发现：weather_lookup",
      /weather_lookup/,
    ],
    [
      "tool_search (none)",
      "帮我查一下北京天气",
      "tool_search",
      "没有匹配的 deferred tools（no deferred tool matched），请尝试更完整的工具名、前缀或其他关键词。",
      /没找到|没有合适/,
    ],
    [
      "view_complex_message",
      "麦麦看看这个转发",
      "view_complex_message",
      "Alice：周六去爬山\nBob：好呀",
      /Alice说“周六去爬山”.*Bob说“好呀”/,
    ],
  ])("%s becomes plain words in the reference and the reply", async (_what, question, tool, result, says) => {
    const [reference, reply] = await lookupThenReply(question, tool, result);
    for (const text of [reference, reply]) {
      expect(text).toMatch(says);
      expect(text).not.toMatch(RAW);
    }
  });

  it("puts raw JSON reference info from another planner into words too", async () => {
    const res = await client.chat(
      replyerRequest({ target: { name: "Alice", text: "yyds是什么意思？" }, reference: JARGON_FOUND }),
    );
    expect(res.content).toContain("永远的神");
    expect(res.content).not.toMatch(RAW);
  });

  it("says it does not know a word in English when the chat is English (the bot's Chinese name aside)", async () => {
    const planned = await client.chat(
      plannerRequest(
        [chatLine("Alice", "m7", "@麦麦 what does xyzzy mean?"), ...lookedUp("query_jargon", {}, JARGON_MISSING)],
        ALL_LOOKUPS,
      ),
    );
    const reference = (toolArgs(planned) as { reference_info: string }).reference_info;
    expect(reference).toMatch(/don't know|no idea/i);
    expect(reference).not.toMatch(/[\u3400-\u9fff]/);
  });
});

describe("SIMULATED model: the chat's language", () => {
  const CJK = /[\u3400-\u9fff]/;

  it("replies in English to an English chat under a Chinese bot locale, and the other way round", async () => {
    const en = await client.chat(
      replyerRequest({ target: { name: "Bob", text: "I'm going hiking this weekend" }, locale: "zh-CN" }),
    );
    expect(en.content).not.toMatch(CJK);
    const zh = await client.chat(replyerRequest({ target: { name: "Bob", text: "我周末去爬山" }, locale: "en" }));
    expect(zh.content).toMatch(CJK);
  });

  it("follows the rest of the chat when the message itself is one bare token", async () => {
    const transcript = ["Carol: 今天好热啊", "Dave: 是啊，空调都不管用"];
    const zh = await client.chat(replyerRequest({ target: { name: "Bob", text: "lol" }, transcript, locale: "en" }));
    expect(zh.content).toMatch(CJK);
    const en = await client.chat(
      replyerRequest({ target: { name: "Bob", text: "666" }, transcript: ["Carol: so hot today"], locale: "zh-CN" }),
    );
    expect(en.content).not.toMatch(CJK);
  });

  it("falls back to the bot's locale when nothing tells", async () => {
    for (const [locale, pattern] of [
      ["zh-CN", CJK],
      ["en", /^[^\u3400-\u9fff]+$/],
    ] as const) {
      const res = await client.chat(replyerRequest({ target: { name: "Bob", text: "666" }, locale }));
      expect(res.content).toMatch(pattern);
    }
  });

  it("gives the gate's reason in the chat's language", async () => {
    expect((await gate("@麦麦 are you there?")).content).not.toMatch(CJK);
    expect((await gate("麦麦在吗")).content).toMatch(CJK);
  });

  it("thinks in the chat's language in the planner", async () => {
    const res = await client.chat(plannerRequest([chatLine("Alice", "m1", "hey, anyone around tonight?")]));
    expect(toolName(res)).toBe("reply");
    expect(res.content).not.toMatch(CJK);
  });
});

describe("SIMULATED model: the term it looks up", () => {
  it.each([
    "查 yyds",
    "查一下 yyds",
    "帮我查查“yyds”",
    "yyds是什么意思",
    "yyds 是啥意思啊",
    "什么是yyds",
    "啥是yyds？",
    "麦麦，'yyds'是什么意思？",
    "@麦麦 你知道yyds是什么意思吗",
    "查一下 yyds 是什么意思",
    "what does yyds mean?",
    "what does “yyds” mean",
    "What's the meaning of 'yyds'?",
    "what is yyds?",
    "look up yyds",
    "can you define yyds please",
  ])("%s looks up exactly yyds", async (text) => {
    const res = await client.chat(plannerRequest([chatLine("Alice", "m7", text)], ALL_LOOKUPS));
    expect(toolName(res)).toBe("query_jargon");
    expect(toolArgs(res)).toEqual({ words: ["yyds"] });
  });

  it.each(["what's up", "你周末打算做什么？", "这是什么"])("%s is not a lookup", async (text) => {
    const res = await client.chat(plannerRequest([chatLine("Alice", "m7", text)], ALL_LOOKUPS));
    expect(toolName(res)).toBe("reply");
  });
});

describe("SIMULATED model: seeded variety", () => {
  afterEach(() => {
    delete process.env.MAISAKA_SIMULATED_SEED;
  });

  const greet = (c: ReturnType<typeof createSimulatedModelClient>, name: string) =>
    c.chat(replyerRequest({ target: { name, text: "你好" } })).then((r) => r.content);
  const NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"];

  it("gives the same words for the same seed, from separate clients", async () => {
    const a = createSimulatedModelClient({ seed: "demo" });
    const b = createSimulatedModelClient({ seed: "demo" });
    for (const name of NAMES) expect(await greet(b, name)).toBe(await greet(a, name));
  });

  it("varies its wording between messages, and between seeds", async () => {
    const templates = await Promise.all(NAMES.map(async (n) => (await greet(client, n)).replace(n, "{name}")));
    expect(new Set(templates).size).toBeGreaterThan(1);
    const bySeed = await Promise.all(
      ["1", "2", "3", "4", "5", "6"].map((seed) => greet(createSimulatedModelClient({ seed }), "Alice")),
    );
    expect(new Set(bySeed).size).toBeGreaterThan(1);
  });

  it("takes the seed from MAISAKA_SIMULATED_SEED when none is given; an explicit seed wins", async () => {
    const greetAll = (c: ReturnType<typeof createSimulatedModelClient>) => Promise.all(NAMES.map((n) => greet(c, n)));
    const expected = await greetAll(createSimulatedModelClient({ seed: "from-env" }));
    const other = await greetAll(createSimulatedModelClient({ seed: "other" }));
    // Guards that the seed matters at all for these eight greetings.
    expect(other).not.toEqual(expected);
    process.env.MAISAKA_SIMULATED_SEED = "from-env";
    expect(await greetAll(createSimulatedModelClient())).toEqual(expected);
    expect(await greetAll(createSimulatedModelClient({ seed: "other" }))).toEqual(other);
  });
});

describe("SIMULATED model: learning extraction", () => {
  const line = (n: number, userName: string, text: string): HistoryMessage => ({
    kind: "session",
    uid: `u${n}`,
    ts: Date.UTC(2026, 0, 1, 4, 0, n),
    messageId: `m${n}`,
    userId: userName.toLowerCase(),
    userName,
    text,
    sourceKind: "user",
  });
  const CHAT = [
    line(1, "Alice", "大家周末有什么安排吗"),
    line(2, "Bob", "我打算去爬山"),
    line(3, "Carol", "这家店的奶茶yyds"),
    line(4, "Carol", "xswl，笑得我肚子疼"),
  ];

  async function learn(locale: Locale, chat: HistoryMessage[]) {
    const stores = createMemoryStores();
    const learner = new SessionLearner("s1", {
      model: createSimulatedModelClient(),
      stores,
      config: parseConfig({ bot: { locale } }, "test"),
      clock: { now: () => 42, setTimer: () => ({ cancel: () => undefined }) },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await learner.learnTrimmed(chat);
    return stores;
  }

  it("answers the learning_extract prompt with valid JSON of the extraction's shape", async () => {
    const res = await client.chat({
      task: "utils",
      messages: [
        { role: "system", content: renderPrompt("learning_extract", {}, { locale: "zh-CN" }) },
        {
          role: "user",
          content: "[12:00:01] Alice: 我下周去北京出差\n[12:00:02] Bob: 好耶\n[12:00:03] 麦麦 (bot): 一路顺风",
        },
      ],
    });
    const json = JSON.parse(res.content) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(["jargon", "memories", "persons"]);
    expect(json.memories).toEqual([expect.stringContaining("我下周去北京出差")]);
    expect(json.persons).toEqual([
      expect.objectContaining({ name: "Alice", facts: [expect.stringContaining("北京")] }),
      expect.objectContaining({ name: "Bob" }),
    ]);
  });

  it("fills the jargon, memory and person stores through the engine's learner, guesses marked as such", async () => {
    const stores = await learn("zh-CN", CHAT);
    const yyds = (await stores.jargon.findExact("yyds", 5))[0];
    expect(yyds.meaning).toContain("永远的神");
    expect(yyds.meaning).toContain("猜测");
    expect((await stores.jargon.findExact("xswl", 5))[0]?.meaning).toContain("笑死我了");
    const memories = await stores.memories.search({ query: "爬山", mode: "search", limit: 5 });
    expect(memories.map((m) => m.content)).toEqual([expect.stringMatching(/Bob.*我打算去爬山/)]);
    // A question is not a memory.
    expect(await stores.memories.search({ query: "安排", mode: "search", limit: 5 })).toEqual([]);
    for (const name of ["Alice", "Bob", "Carol"]) expect(await stores.persons.find(name)).not.toBeNull();
    expect((await stores.persons.find("Bob"))?.facts).toEqual([expect.stringContaining("爬山")]);
  });

  it("learns in English from an English chat, and never learns the bot's own lines", async () => {
    const chat = [
      line(1, "Alice", "I'm going to Paris next week"),
      line(2, "Bob", "brb, grabbing coffee"),
      line(3, "Bob", "tbh Paris sounds great"),
      { ...line(4, "麦麦", "have fun!"), sourceKind: "guided_reply" as const },
    ];
    const stores = await learn("zh-CN", chat);
    expect((await stores.jargon.findExact("brb", 5))[0]?.meaning).toMatch(/^\(simulated guess\).*be right back/);
    const all = await stores.memories.search({ mode: "time", limit: 20 });
    expect(all.map((m) => m.content)).toContainEqual(
      expect.stringMatching(/^Alice \w+.*: "I'm going to Paris next week"$/),
    );
    expect(all.every((m) => !m.content.includes("have fun"))).toBe(true);
    expect(await stores.persons.find("麦麦")).toBeNull();
  });
});

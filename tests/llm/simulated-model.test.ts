import { describe, expect, it } from "vitest";
import type { LlmMessage } from "../../lib/llm/messages";
import type { LlmToolDefinition } from "../../lib/tools/schemas";
import { renderPrompt } from "../../server/engine/prompts/templates";
import type { ChatRequest, ChatResponse } from "../../server/llm/model-client";
import { createSimulatedModelClient, handleChatCompletion } from "../../server/llm/simulated";

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

  it("replies with what the lookup found once it has a result", async () => {
    const res = await client.chat(
      plannerRequest(
        [
          chatLine("Alice", "m7", "yyds是什么意思？"),
          {
            role: "assistant",
            content: "先查一下",
            tool_calls: [
              { id: "c9", type: "function", function: { name: "query_jargon", arguments: '{"words":["yyds"]}' } },
            ],
          },
          { role: "tool", tool_call_id: "c9", content: "yyds：永远的神" },
        ],
        tools("reply", "finish", "query_jargon"),
      ),
    );
    expect(toolName(res)).toBe("reply");
    expect(toolArgs(res)).toEqual({ msg_id: "m7", reference_info: "yyds：永远的神" });
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

import { beforeEach, describe, expect, it } from "vitest";
import type {
  AssistantMessage,
  ComplexSessionMessage,
  HistoryMessage,
  ReferenceMessage,
  SessionBackedMessage,
  ToolMediaMessage,
  ToolResultMessage,
} from "../../server/engine/context/messages";
import { renderHistoryMessage } from "../../server/engine/context/render";
import { selectContext, trimHistory, type SelectContextOptions } from "../../server/engine/context/selection";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let seq = 0;
beforeEach(() => {
  seq = 0;
});
const base = () => {
  seq++;
  return { uid: `u${seq}`, ts: T0 + seq * 1000 };
};

function session(text: string, extra: Partial<SessionBackedMessage> = {}): SessionBackedMessage {
  const b = base();
  return {
    ...b,
    kind: "session",
    messageId: `m${seq}`,
    userId: "10",
    userName: "Alice",
    text,
    sourceKind: "user",
    ...extra,
  };
}
function reference(content: string, audience?: "timing_gate"): ReferenceMessage {
  return { ...base(), kind: "reference", referenceType: audience ? "tool_hint" : "memory", content, audience };
}
function assistant(
  content: string,
  callIds: string[] = [],
  source: AssistantMessage["source"] = "assistant",
): AssistantMessage {
  return {
    ...base(),
    kind: "assistant",
    source,
    content,
    toolCalls: callIds.map((id) => ({ id, type: "function", function: { name: `tool_${id}`, arguments: "{}" } })),
  };
}
function result(callId: string, source?: "timing_gate"): ToolResultMessage {
  return {
    ...base(),
    kind: "tool_result",
    toolCallId: callId,
    toolName: `tool_${callId}`,
    success: true,
    content: `ok ${callId}`,
    source,
  };
}
function media(callId: string, index: number, data?: string): ToolMediaMessage {
  return {
    ...base(),
    kind: "tool_media",
    toolCallId: callId,
    index,
    mimeType: "image/png",
    description: "a cat",
    data,
  };
}

const planner = (maxContextSize: number): SelectContextOptions => ({
  requestKind: "planner",
  maxContextSize,
  tz: "UTC",
});
const uids = (ms: HistoryMessage[]) => ms.map((m) => m.uid);

describe("renderHistoryMessage", () => {
  it("renders a session message with the planner prefix", () => {
    const m = session("你好", { groupCard: "卡片" });
    expect(renderHistoryMessage(m, { tz: "UTC" })).toEqual({
      role: "user",
      content: "[时间]12:00:01\n[用户名]Alice\n[用户群昵称]卡片\n[msg_id]m1\n[发言内容]你好",
    });
    expect(renderHistoryMessage(session(""))).toBeNull();
  });

  it("renders a complex message as its preview", () => {
    const m: ComplexSessionMessage = {
      ...base(),
      kind: "complex",
      messageId: "f1",
      userId: "10",
      userName: "Alice",
      preview: [{ sender: "Bob", text: "hi" }],
      total: 3,
    };
    expect(renderHistoryMessage(m, { tz: "UTC" })).toEqual({
      role: "user",
      content:
        "[时间]12:00:01\n[用户名]Alice\n[msg_id]f1\n[发言内容][消息类型]复杂消息 / 转发消息 / 预览前4条：\nBob：hi\n共3条，可以选择使用 view_complex_message 查看完整内容。",
    });
  });

  it("renders references, or nothing when empty", () => {
    expect(renderHistoryMessage(reference("黑话：yyds"))).toEqual({ role: "user", content: "[参考消息]黑话：yyds" });
    expect(renderHistoryMessage(reference(""))).toBeNull();
  });

  it("renders assistant messages", () => {
    const withCall = assistant("", ["c1"]);
    expect(renderHistoryMessage(withCall)).toEqual({
      role: "assistant",
      content: null,
      tool_calls: withCall.toolCalls,
    });
    expect(renderHistoryMessage(assistant("thinking"))).toEqual({ role: "assistant", content: "thinking" });
    expect(renderHistoryMessage({ ...assistant("x"), reasoningContent: "why" })).toEqual({
      role: "assistant",
      content: "x",
      reasoning_content: "why",
    });
    expect(renderHistoryMessage(assistant(""))).toBeNull();
  });

  it("renders tool results as tool messages", () => {
    expect(renderHistoryMessage(result("c9"))).toEqual({ role: "tool", tool_call_id: "c9", content: "ok c9" });
    expect(renderHistoryMessage({ ...result("c9"), content: "" })).toBeNull();
  });

  it("renders tool media as a placeholder, with the image only for vision", () => {
    const m = media("c1", 0, "QUJD");
    const text = "[工具返回媒体] tool_result:c1:0 image/png a cat";
    expect(renderHistoryMessage(m)).toEqual({ role: "user", content: text });
    expect(renderHistoryMessage(media("c1", 0), { vision: true })).toEqual({ role: "user", content: text });
    expect(renderHistoryMessage(m, { vision: true })).toEqual({
      role: "user",
      content: [
        { type: "text", text },
        { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } },
      ],
    });
    const audio = { ...m, mimeType: "audio/wav" };
    expect(renderHistoryMessage(audio, { vision: true })).toEqual({
      role: "user",
      content: "[工具返回媒体] tool_result:c1:0 audio/wav a cat",
    });
  });
});

describe("selectContext: window", () => {
  it("counts only sessions, complex and non-perception assistant messages", () => {
    const h = [
      session("old"), // u1: would be the 4th counted -> excluded
      session("s1"), // u2
      reference("memo"), // u3
      assistant("", ["c1"]), // u4 counts
      result("c1"), // u5
      assistant("note", [], "perception"), // u6
      session("s2"), // u7
    ];
    const sel = selectContext(h, planner(3));
    expect(sel.selectedCount).toBe(3);
    expect(uids(sel.messages)).toEqual(["u2", "u3", "u4", "u5", "u6", "u7"]);
  });

  it("stops when the window is full, excluding everything older", () => {
    const h = [session("a"), reference("r-old"), session("b"), reference("r"), session("c"), session("d")];
    const sel = selectContext(h, planner(2));
    expect(sel.selectedCount).toBe(2);
    expect(uids(sel.messages)).toEqual(["u5", "u6"]);
    expect(selectContext(h, planner(0)).messages).toEqual([]);
    const all = selectContext(h, planner(40));
    expect(all.selectedCount).toBe(4);
    expect(all.messages).toHaveLength(6);
  });

  it("skips unrenderable messages without counting them", () => {
    const h = [session("a"), session("b"), session(""), assistant(""), reference("")];
    const sel = selectContext(h, planner(2));
    expect(uids(sel.messages)).toEqual(["u1", "u2"]);
    expect(sel.selectedCount).toBe(2);
  });

  it("returns rendered messages in chronological order, aligned with the sources", () => {
    const h = [session("first"), assistant("thinking a"), assistant("thinking b"), session("second")];
    const sel = selectContext(h, planner(10));
    expect(sel.llmMessages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sel.llmMessages[0]).toEqual({
      role: "user",
      content: "[时间]12:00:01\n[用户名]Alice\n[msg_id]m1\n[发言内容]first",
    });
    expect(sel.llmMessages[1]).toEqual({ role: "assistant", content: "thinking b" });
    expect(uids(sel.messages)).toEqual(["u1", "u3", "u4"]);
  });
});

describe("selectContext: request kinds", () => {
  const history = () => [
    session("hello"), // u1
    assistant("gate thinks", ["g1"], "timing_gate"), // u2
    result("g1", "timing_gate"), // u3
    reference("call exactly one tool", "timing_gate"), // u4
    reference("memory"), // u5
    assistant("", ["p1"]), // u6
    result("p1"), // u7
  ];

  it("hides the gate's chain and hints from the planner", () => {
    const sel = selectContext(history(), planner(40));
    expect(uids(sel.messages)).toEqual(["u1", "u5", "u6", "u7"]);
    expect(sel.selectedCount).toBe(2);
  });

  it("shows the gate its own chain and hints", () => {
    const sel = selectContext(history(), { requestKind: "timing_gate", maxContextSize: 40 });
    expect(uids(sel.messages)).toEqual(["u1", "u2", "u3", "u4", "u5", "u6", "u7"]);
    expect(sel.selectedCount).toBe(3);
  });

  it("shows sub-agents the gate's chain but not its hints", () => {
    const sel = selectContext(history(), { requestKind: "sub_agent", maxContextSize: 40 });
    expect(uids(sel.messages)).toEqual(["u1", "u2", "u3", "u5", "u6", "u7"]);
  });
});

describe("selectContext: tool calls and results", () => {
  it("drops results and media whose call is outside the window", () => {
    const h = [assistant("", ["c1"]), result("c1"), media("c1", 0), session("a"), session("b")];
    // Walking back, the window fills at u4 before reaching the call u1.
    const sel = selectContext(h, planner(2));
    expect(uids(sel.messages)).toEqual(["u4", "u5"]);
    expect(sel.llmMessages.every((m) => m.role === "user")).toBe(true);
  });

  it("puts each result right after its call, then the media", () => {
    const h = [
      assistant("look", ["c1", "c2"]), // u1
      media("c1", 0, "QUJD"), // u2
      result("c2"), // u3
      session("meanwhile"), // u4
      result("c1"), // u5
    ];
    const sel = selectContext(h, { ...planner(10), vision: true });
    expect(uids(sel.messages)).toEqual(["u1", "u5", "u3", "u2", "u4"]);
    expect(sel.llmMessages.map((m) => m.role)).toEqual(["assistant", "tool", "tool", "user", "user"]);
    expect(sel.llmMessages[1]).toEqual({ role: "tool", tool_call_id: "c1", content: "ok c1" });
    expect(Array.isArray(sel.llmMessages[3].content)).toBe(true);
  });

  it("removes calls whose result is missing, and the message when nothing is left", () => {
    const h = [
      assistant("partial", ["c1", "c2"]), // u1: c2 never got a result
      result("c1"), // u2
      media("c2", 0), // u3: its call is removed, so it goes too
      assistant("", ["c3"]), // u4: paused before any result
      session("next"), // u5
    ];
    const sel = selectContext(h, planner(10));
    expect(uids(sel.messages)).toEqual(["u1", "u2", "u5"]);
    expect(sel.llmMessages[0]).toEqual({
      role: "assistant",
      content: "partial",
      tool_calls: [{ id: "c1", type: "function", function: { name: "tool_c1", arguments: "{}" } }],
    });
    // The history itself is untouched.
    expect((h[0] as AssistantMessage).toolCalls).toHaveLength(2);
  });

  it("keeps a call's text when all its calls are removed", () => {
    const sel = selectContext([assistant("just text", ["c1"]), session("x")], planner(10));
    expect(sel.llmMessages[0]).toEqual({ role: "assistant", content: "just text" });
  });

  it("drops results without any call", () => {
    const sel = selectContext([result("ghost"), session("x"), media("ghost", 1)], planner(10));
    expect(uids(sel.messages)).toEqual(["u2"]);
  });
});

describe("selectContext: hiding earlier assistant text", () => {
  it("hides the text of the earliest half, keeping their calls and results", () => {
    const h = [
      assistant("t1"), // u1: hidden, dropped (no calls)
      assistant("t2", ["c2"]), // u2: hidden text, call kept
      result("c2"), // u3
      assistant("perceived", [], "perception"), // u4: not an assistant text message
      assistant("t3"), // u5
      assistant("t4"), // u6
      assistant("t5", ["c5"]), // u7
      result("c5"), // u8
      assistant("", ["c6"]), // u9: no text, not counted for hiding
      result("c6"), // u10
    ];
    const sel = selectContext(h, planner(40));
    expect(uids(sel.messages)).toEqual(["u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10"]);
    expect(sel.llmMessages[0]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: (h[1] as AssistantMessage).toolCalls,
    });
    expect(sel.llmMessages[1]).toEqual({ role: "tool", tool_call_id: "c2", content: "ok c2" });
    expect(sel.llmMessages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([
      null,
      "perceived",
      "t3",
      "t4",
      "t5",
      null,
    ]);
    expect(sel.selectedCount).toBe(6);
  });

  it("hides the text but keeps the reasoning of a hidden tool-call message (the endpoint's rule decides)", () => {
    const h = [{ ...assistant("old", ["c1"]), reasoningContent: "r" }, result("c1"), assistant("new")];
    expect(selectContext(h, planner(10)).llmMessages[0]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: (h[0] as AssistantMessage).toolCalls,
      reasoning_content: "r",
    });
  });

  it("hides nothing with a single assistant text", () => {
    const sel = selectContext([session("q"), assistant("only")], planner(10));
    expect(sel.llmMessages[1]).toEqual({ role: "assistant", content: "only" });
  });
});

describe("trimHistory", () => {
  it("keeps everything up to twice the window", () => {
    const h = [session("a"), reference("r"), session("b"), session("c"), session("d")];
    const { kept, removed } = trimHistory(h, 2);
    expect(kept).toEqual(h);
    expect(removed).toEqual([]);
  });

  it("removes the oldest until the window fits", () => {
    const h = [session("a"), reference("r"), session("b"), session("c"), session("d"), session("e")];
    const { kept, removed } = trimHistory(h, 2);
    expect(uids(kept)).toEqual(["u5", "u6"]);
    expect(uids(removed)).toEqual(["u1", "u2", "u3", "u4"]);
  });

  it("never leaves orphan tool outputs behind", () => {
    const h = [
      session("a"), // u1
      session("b"), // u2
      assistant("", ["c1"]), // u3: removed as the 3rd counted
      result("c1"), // u4: orphan at the head
      media("c1", 0), // u5
      reference("memo"), // u6
      result("c1"), // u7: a duplicate further in, still of a removed call
      session("c"), // u8
      assistant("x", ["c2"]), // u9
      result("c2"), // u10
    ];
    const { kept, removed } = trimHistory(h, 2);
    expect(uids(kept)).toEqual(["u6", "u8", "u9", "u10"]);
    expect(uids(removed)).toEqual(["u1", "u2", "u3", "u4", "u5", "u7"]);
  });

  it("removes a leading result whose call was never in history", () => {
    const h = [session("a"), session("b"), session("c"), result("ghost"), session("d"), session("e")];
    // 5 counted > 2*2: remove u1..u3, then the orphan u4 at the head.
    const { kept, removed } = trimHistory(h, 2);
    expect(uids(kept)).toEqual(["u5", "u6"]);
    expect(uids(removed)).toEqual(["u1", "u2", "u3", "u4"]);
  });
});

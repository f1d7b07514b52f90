// The replay's re-run and fork pieces: the choices the fork dialog offers from a real recording, the
// client of POST /rerun and GET /branches, the origin banner (divergence as text, its /diff and original
// links), the branches list, the dialog's fields and the cycle card's fork control.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CycleCard } from "../../components/cycle/CycleCard";
import { BranchList } from "../../components/replay/Branches";
import { OriginView } from "../../components/replay/OriginBanner";
import { RerunForm, type RerunChoices } from "../../components/replay/RerunDialog";
import { DerivedBadge } from "../../components/sessions/DerivedBadge";
import { ApiRequestError } from "../../lib/client/api";
import { fetchBranches, startRerun } from "../../lib/client/api-rerun";
import { emptyDraft } from "../../lib/client/rerun-form";
import {
  clip,
  cycleNumber,
  divergenceDiffHref,
  messageChoices,
  replayHref,
  speakerChoices,
  toolCallChoices,
  toolChoices,
  valueText,
} from "../../lib/client/rerun-view";
import { applyEvents, emptyTimeline, type CycleView } from "../../lib/client/timeline";
import { translate } from "../../lib/i18n/messages";
import type { SessionBranch, SessionOrigin } from "../../lib/rerun/schemas";
import { SESSION, fixtureEvents } from "./fixture";

afterEach(() => vi.unstubAllGlobals());

const timeline = applyEvents(emptyTimeline(SESSION), fixtureEvents);
const cycles: CycleView[] = timeline.items.flatMap((i) => (i.kind === "cycle" ? [i.cycle] : []));
const c2 = cycles.find((c) => c.cycleId === "c2")!;
const t = (key: Parameters<typeof translate>[1], vars?: Parameters<typeof translate>[2]) => translate("en", key, vars);

const origin: SessionOrigin = {
  kind: "fork",
  sessionId: "qq:1:group:2",
  fromCycle: "c2",
  at: Date.UTC(2026, 0, 1, 12, 0, 0),
  actor: "alice",
  edits: [
    { kind: "tool_off", toolName: "query_memory" },
    { kind: "add_message", userId: "fork:Dave", userName: "Dave", text: "<b>hi</b>\nsecond line" },
  ],
  settings: { chat: { talkValue: 0.5 }, prompts: { "en:timing_gate": "Always wait." } },
  continueWith: "model",
  divergence: {
    cycleId: "c2",
    rerunCycleId: "c9",
    cycleIndex: 1,
    kind: "gate_action",
    task: "timingGate",
    path: "action",
    expected: "continue",
    actual: { action: "<script>alert(1)</script>" },
    consequence: { kind: "message", expected: "周末看书", actual: null },
  },
  stats: {
    originalCycles: 3,
    rerunCycles: 2,
    replayedCalls: 4,
    liveCalls: 1,
    engineSteps: 2,
    replayedTools: 1,
    liveTools: 0,
    durationMs: 120,
  },
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("the fork dialog's choices from a recording", () => {
  it("lists the inbound messages in order, marking those after the fork cycle began", () => {
    const messages = messageChoices(timeline, "c2");
    expect(messages.map((m) => m.messageId)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
    // m3..m5 arrived before c2 started: none is later; with c1 as the fork, they all are.
    expect(messages.every((m) => !m.later)).toBe(true);
    expect(
      messageChoices(timeline, "c1")
        .filter((m) => m.later)
        .map((m) => m.messageId),
    ).toEqual(["m3", "m4", "m5"]);
    expect(messages[0]).toMatchObject({ speaker: "爱丽丝", text: "大家周末有什么安排吗" });
  });

  it("offers the cycle's tool calls and the tools offered to its planner (the session's when it had none)", () => {
    expect(toolCallChoices(c2).map((c) => [c.id, c.name])).toEqual([["call_sim_f26ed79b2d83_0", "reply"]]);
    expect(toolCallChoices(null)).toEqual([]);
    expect(toolChoices(timeline, c2)).toContain("query_memory");
    const c1 = cycles[0];
    expect(c1.finalized?.request).toBeNull();
    expect(toolChoices(timeline, c1)).toEqual(toolChoices(timeline, c2));
  });

  it("numbers cycles from 1 in the original's order", () => {
    expect(cycleNumber(timeline, "c3")).toBe(3);
    expect(cycleNumber(timeline, "nope")).toBeNull();
    expect(cycleNumber(null, "c3")).toBeNull();
  });
});

describe("links and values", () => {
  it("links the diverging cycles in /diff, the whole sessions when one side has no cycle", () => {
    expect(divergenceDiffHref("qq:1:group:2", "rr-1", { cycleId: "c2", rerunCycleId: "c9" })).toBe(
      "/diff?a=qq%3A1%3Agroup%3A2%3Ac2&b=rr-1%3Ac9",
    );
    const url = new URL(divergenceDiffHref("qq:1:group:2", "rr-1", { cycleId: "c2", rerunCycleId: "c9" }), "http://x");
    expect(url.searchParams.get("a")).toBe("qq:1:group:2:c2");
    expect(url.searchParams.get("b")).toBe("rr-1:c9");
    expect(divergenceDiffHref("s", "r", { cycleId: "c2", rerunCycleId: null })).toBe("/diff?a=s&b=r");
    expect(divergenceDiffHref("s", "r", { cycleId: "", rerunCycleId: "c4" })).toBe("/diff?a=s&b=r");
    expect(replayHref("qq:1:group:2", "c2")).toBe("/sessions/qq%3A1%3Agroup%3A2/replay?cycle=c2");
    expect(replayHref("s")).toBe("/sessions/s/replay");
  });

  it("summaries clip to a first line; speakers are listed once with their ids", () => {
    expect(clip("short")).toBe("short");
    expect(clip("one\ntwo")).toBe("one…");
    expect(clip("x".repeat(70))).toBe(`${"x".repeat(60)}…`);
    expect(speakerChoices(messageChoices(timeline, null)).map((s) => s.name)).toEqual(["爱丽丝", "Bob", "Carol"]);
  });

  it("shows recorded values as text", () => {
    expect(valueText("a\nb")).toBe("a\nb");
    expect(valueText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(valueText(null)).toBe("null");
    expect(valueText(undefined)).toBe("—");
  });
});

describe("the re-run client", () => {
  it("posts the request to the session's rerun route and parses the answer", async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return json(201, { id: "rr-1", divergence: null, stats: origin.stats });
    });
    const answer = await startRerun("qq:1:group:2", { fromCycle: "c2", continueWith: "stop" });
    expect(answer).toEqual({ id: "rr-1", divergence: null, stats: origin.stats });
    expect(calls[0].url).toBe("/api/sessions/qq%3A1%3Agroup%3A2/rerun");
    expect(calls[0].init.method).toBe("POST");
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ fromCycle: "c2", continueWith: "stop" });
  });

  it("a session that cannot be re-run is an error with the server's reason", async () => {
    vi.stubGlobal("fetch", async () => json(409, { error: "no recorded model calls" }));
    const failure = await startRerun("s", {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect(failure).toMatchObject({ status: 409, message: "no recorded model calls" });
  });

  it("reads the branches, refusing an answer that does not fit the wire shape", async () => {
    const branch: SessionBranch = { id: "rr-1", name: "what if", createdAt: 1, origin };
    vi.stubGlobal("fetch", async (url: string) => {
      expect(url).toBe("/api/sessions/s/branches");
      return json(200, { branches: [branch] });
    });
    expect(await fetchBranches("s")).toEqual([branch]);
    vi.stubGlobal("fetch", async () => json(200, { branches: [{ id: "x" }] }));
    await expect(fetchBranches("s")).rejects.toThrow(/unexpected answer/);
  });
});

describe("the origin banner", () => {
  const html = renderToStaticMarkup(
    createElement(OriginView, { sessionId: "rr-1", origin, originName: "Weekend chat", fromCycleNumber: 2 }),
  );

  it("says what it is a fork of, from which cycle, with its edits and settings", () => {
    expect(html).toContain('data-testid="origin-banner"');
    expect(html).toContain("fork");
    expect(html).toContain("Weekend chat");
    expect(html).toContain("from cycle 2 (c2)");
    expect(html).toContain('href="/sessions/qq%3A1%3Agroup%3A2/replay?cycle=c2"');
    expect(html).toContain("tool query_memory off");
    expect(html).toContain("message added from Dave: &lt;b&gt;hi&lt;/b&gt;…");
    expect(html).toContain("chat.talkValue = 0.5");
    expect(html).toContain("prompt en:timing_gate overridden (12 characters)");
    expect(html).toContain("model calls 4 replayed, 1 live");
  });

  it("shows the divergence as text, with its diff and the original at that cycle", () => {
    expect(html).toContain("First divergence, cycle 2");
    expect(html).toContain("gate decision");
    expect(html).toContain('data-testid="divergence-path">action<');
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).toContain('href="/diff?a=qq%3A1%3Agroup%3A2%3Ac2&amp;b=rr-1%3Ac9"');
    expect(html).toContain('data-testid="divergence-original"');
    expect(html).toContain("周末看书");
    expect(html).toContain("bot message");
  });

  it("says a re-run that diverged nowhere reproduced exactly, and one still running that it runs", () => {
    const same = renderToStaticMarkup(
      createElement(OriginView, {
        sessionId: "rr-2",
        origin: { ...origin, kind: "rerun", edits: [], settings: null, divergence: null },
        originName: "Weekend chat",
        fromCycleNumber: null,
      }),
    );
    expect(same).toContain('data-testid="divergence-none"');
    expect(same).toContain("reproduced exactly");
    expect(same).toContain("from cycle c2");
    expect(same).not.toContain('data-testid="divergence"');
    expect(same).not.toContain('data-testid="origin-changes"');
    const running = renderToStaticMarkup(
      createElement(OriginView, {
        sessionId: "rr-3",
        origin: { ...origin, divergence: undefined },
        originName: "x",
        fromCycleNumber: null,
      }),
    );
    expect(running).toContain("running");
  });
});

describe("the branches", () => {
  it("lists each derived session by fork cycle with its kind, edits and outcome, each opening its replay", () => {
    const branches: SessionBranch[] = [
      { id: "rr-1", name: "what if", createdAt: 2, origin },
      {
        id: "rr-2",
        name: "nightly",
        createdAt: 1,
        origin: { ...origin, kind: "rerun", fromCycle: null, edits: [], divergence: null },
      },
    ];
    const html = renderToStaticMarkup(createElement(BranchList, { branches, timeline }));
    expect(html.match(/data-testid="branch"/g)).toHaveLength(2);
    // The whole-session group comes before the cycle 2 group.
    expect(html.indexOf("whole session")).toBeLessThan(html.indexOf("from cycle 2 (c2)"));
    expect(html).toContain('href="/sessions/rr-1/replay"');
    expect(html).toContain("2 edits: tool query_memory off …");
    expect(html).toContain("reproduced exactly");
    expect(html).toContain("diverged at cycle 2: gate decision");
  });

  it("marks a derived session in the overview", () => {
    expect(renderToStaticMarkup(createElement(DerivedBadge, { origin }))).toContain('data-testid="derived-badge"');
  });
});

describe("the dialog's fields", () => {
  const choices: RerunChoices = {
    messages: messageChoices(timeline, "c2"),
    speakers: [{ name: "Bob", userId: "u-bob" }],
    toolCalls: toolCallChoices(c2),
    tools: toolChoices(timeline, c2),
    promptNames: ["timing_gate", "maisaka_chat"],
    defaults: { "zh-CN": {}, en: {} },
    talkValue: 1,
    botLocale: "en",
  };

  it("a fork offers every edit kind and the settings, each edit with what to pick from", () => {
    const draft = {
      ...emptyDraft("fork", "c2"),
      edits: [
        { kind: "drop_message" as const, messageId: "m4" },
        { kind: "tool_off" as const, toolName: "" },
        { kind: "tool_output" as const, toolCallId: "", content: "", success: true },
        { kind: "add_message" as const, userId: "", userName: "", text: "", atBot: false },
      ],
    };
    const html = renderToStaticMarkup(
      createElement(RerunForm, { draft, onChange: () => undefined, choices, problems: [], t }),
    );
    for (const kind of ["drop_message", "add_message", "tool_output", "tool_off"])
      expect(html).toContain(`data-testid="add-edit-${kind}"`);
    expect(html.match(/data-testid="fork-edit"/g)).toHaveLength(4);
    expect(html).toContain("爱丽丝: @麦麦 你周末打算做什么？");
    expect(html).toContain('value="call_sim_f26ed79b2d83_0"');
    expect(html).toContain('value="query_memory"');
    expect(html).toContain('data-testid="fork-talk-value"');
    expect(html).toContain('data-testid="add-prompt"');
    expect(html).toContain("configured model");
  });

  it("a re-run offers the continuation, live read-only tools and the settings, no edit; problems mark their fields", () => {
    const html = renderToStaticMarkup(
      createElement(RerunForm, { draft: emptyDraft("rerun"), onChange: () => undefined, choices, problems: [], t }),
    );
    expect(html).toContain('data-testid="rerun-continue-with"');
    expect(html).toContain('data-testid="rerun-live-tools"');
    expect(html).not.toContain('data-testid="fork-edits"');
    expect(html).toContain('data-testid="fork-settings"');
    const marked = renderToStaticMarkup(
      createElement(RerunForm, {
        draft: { ...emptyDraft("fork", "c2"), talkValue: "x" },
        onChange: () => undefined,
        choices,
        problems: [{ path: "talkValue", code: "notNumber" }],
        t,
      }),
    );
    expect(marked).toMatch(/aria-invalid="true"[^>]*data-testid="fork-talk-value"/);
  });

  it("the cycle card shows the fork control only when given one, and only on a finished cycle", () => {
    const withFork = renderToStaticMarkup(createElement(CycleCard, { cycle: c2, onFork: () => undefined }));
    expect(withFork).toContain('data-testid="fork-cycle"');
    expect(renderToStaticMarkup(createElement(CycleCard, { cycle: c2 }))).not.toContain('data-testid="fork-cycle"');
    const running = { ...c2, end: null, finalized: null };
    expect(renderToStaticMarkup(createElement(CycleCard, { cycle: running, onFork: () => undefined }))).not.toContain(
      'data-testid="fork-cycle"',
    );
  });
});

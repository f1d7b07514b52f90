// The re-run / fork dialog's draft turned into the POST /api/sessions/:id/rerun body: every edit and
// setting arrives, in order, in the wire shape; a malformed one stops the request and names its field.
import { describe, expect, it } from "vitest";
import { emptyDraft, newEdit, toRerunRequest, type RerunDraft } from "../../lib/client/rerun-form";
import { rerunRequestSchema } from "../../lib/rerun/schemas";

function fork(over: Partial<RerunDraft> = {}): RerunDraft {
  return { ...emptyDraft("fork", "c2"), ...over };
}

function problemsOf(draft: RerunDraft) {
  const out = toRerunRequest(draft);
  if (out.ok) throw new Error(`expected problems, got ${JSON.stringify(out.request)}`);
  return out.problems;
}

describe("toRerunRequest", () => {
  it("a re-run of the whole session sends only what was chosen, with the chosen continuation", () => {
    expect(toRerunRequest(emptyDraft("rerun"))).toEqual({ ok: true, request: { continueWith: "stop" } });
    const out = toRerunRequest({ ...emptyDraft("rerun"), name: "  nightly  ", liveReadOnlyTools: true });
    expect(out).toEqual({ ok: true, request: { continueWith: "stop", liveReadOnlyTools: true, name: "nightly" } });
  });

  it("a fork continues with the configured model unless told otherwise", () => {
    expect(toRerunRequest(fork())).toEqual({ ok: true, request: { fromCycle: "c2", continueWith: "model" } });
    expect(toRerunRequest(fork({ continueWith: "simulated" }))).toMatchObject({
      ok: true,
      request: { continueWith: "simulated" },
    });
  });

  it("carries every edit kind, in order, in the wire shape", () => {
    const out = toRerunRequest(
      fork({
        edits: [
          { kind: "tool_off", toolName: " query_memory " },
          { kind: "drop_message", messageId: "m4" },
          { kind: "add_message", userId: "", userName: "Dave", text: "我也去！", atBot: true },
          { kind: "add_message", userId: "u-bob", userName: "Bob", text: "line one\nline two", atBot: false },
          { kind: "tool_output", toolCallId: "call_1", content: "", success: false },
        ],
      }),
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.request.edits).toEqual([
      { kind: "tool_off", toolName: "query_memory" },
      { kind: "drop_message", messageId: "m4" },
      { kind: "add_message", userId: "fork:Dave", userName: "Dave", text: "我也去！", atBot: true, mentionsBot: true },
      { kind: "add_message", userId: "u-bob", userName: "Bob", text: "line one\nline two" },
      { kind: "tool_output", toolCallId: "call_1", content: "", success: false },
    ]);
    // What the server will parse is exactly what was built.
    expect(rerunRequestSchema.parse(out.request)).toEqual(out.request);
  });

  it("refuses an edit with a required part missing, naming it, and sends nothing", () => {
    for (const kind of ["drop_message", "add_message", "tool_output", "tool_off"] as const) {
      const problems = problemsOf(fork({ edits: [{ kind: "tool_off", toolName: "reply" }, newEdit(kind)] }));
      expect(problems.length, kind).toBeGreaterThan(0);
      expect(problems.every((p) => p.path.startsWith("edits.1.") && p.code === "required")).toBe(true);
    }
    expect(
      problemsOf(fork({ edits: [{ kind: "add_message", userId: "", userName: "Dave", text: " ", atBot: false }] })),
    ).toEqual([{ path: "edits.0.text", code: "required" }]);
    expect(
      problemsOf(fork({ edits: [{ kind: "add_message", userId: "", userName: "  ", text: "x", atBot: false }] })),
    ).toEqual([{ path: "edits.0.userName", code: "required" }]);
  });

  it("refuses the same message dropped or tool switched off twice", () => {
    expect(
      problemsOf(
        fork({
          edits: [
            { kind: "drop_message", messageId: "m1" },
            { kind: "tool_off", toolName: "reply" },
            { kind: "drop_message", messageId: "m1" },
          ],
        }),
      ),
    ).toEqual([{ path: "edits.2", code: "duplicate" }]);
  });

  it("limits come from the wire schema: too long a text is refused with its path", () => {
    const problems = problemsOf(
      fork({ edits: [{ kind: "add_message", userId: "", userName: "Dave", text: "x".repeat(20_001), atBot: false }] }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: "edits.0.text", code: "invalid" });
  });

  it("settings: a talk value as a number, prompt overrides by key; nothing sent when unchanged", () => {
    const out = toRerunRequest(
      fork({
        talkValue: " 0.5 ",
        prompts: [
          { name: "timing_gate", locale: "", text: "Always wait." },
          { name: "maisaka_chat", locale: "en", text: "Be brief." },
        ],
      }),
    );
    expect(out).toEqual({
      ok: true,
      request: {
        fromCycle: "c2",
        continueWith: "model",
        settings: {
          chat: { talkValue: 0.5 },
          prompts: { timing_gate: "Always wait.", "en:maisaka_chat": "Be brief." },
        },
      },
    });
    expect(problemsOf(fork({ talkValue: "lots" }))).toEqual([{ path: "talkValue", code: "notNumber" }]);
    expect(problemsOf(fork({ talkValue: "-1" }))).toEqual([{ path: "talkValue", code: "notNumber" }]);
    expect(problemsOf(fork({ prompts: [{ name: "", locale: "", text: "" }] }))).toEqual([
      { path: "prompts.0.name", code: "required" },
      { path: "prompts.0.text", code: "required" },
    ]);
    expect(
      problemsOf(
        fork({
          prompts: [
            { name: "x", locale: "en", text: "a" },
            { name: "x", locale: "en", text: "b" },
          ],
        }),
      ),
    ).toEqual([{ path: "prompts.1.name", code: "duplicate" }]);
  });

  it("a fork needs its cycle", () => {
    expect(problemsOf({ ...emptyDraft("fork", null) })).toEqual([{ path: "fromCycle", code: "required" }]);
  });
});

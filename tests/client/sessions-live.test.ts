// The all-sessions stream merged into the sessions list.
import { describe, expect, it } from "vitest";
import { MAX_AFTER_SEQS } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import { applySessionEvents, sessionCursors } from "../../lib/client/sessions-live";
import { SESSION, fixtureEvents, summaryRow } from "./fixture";

const row = summaryRow();

describe("applySessionEvents", () => {
  it("follows stage, round, activity and cycle count, once per seq", () => {
    const once = applySessionEvents([row], fixtureEvents);
    const twice = applySessionEvents(once.sessions, fixtureEvents);
    for (const merged of [once, twice]) {
      const r = merged.sessions[0];
      expect(r.lastSeq).toBe(fixtureEvents.length);
      expect(r.cycleCount).toBe(3);
      expect(r.stage).toBe("idle");
      expect(r.lastActiveAt).toBe(fixtureEvents[fixtureEvents.length - 1].ts);
      expect(merged.unknownSession).toBe(false);
    }
  });

  it("asks for a refetch when a session it does not list speaks, but not for global toggles", () => {
    const stranger = { ...fixtureEvents[0], sessionId: "new-one" };
    expect(applySessionEvents([row], [stranger]).unknownSession).toBe(true);
    const global: MonitorEvent = {
      seq: 1,
      sessionId: "_global",
      ts: 0,
      type: "tool.toggled",
      data: { toolName: "x", scope: "global", enabled: false, actor: "op", reason: "", auditId: "a" },
    };
    expect(applySessionEvents([row], [global]).unknownSession).toBe(false);
    expect(applySessionEvents([row], [stranger, stranger]).unknownIds).toEqual(["new-one"]);
  });

  it("ignores sessions known to be off the loaded pages (no refetch for them)", () => {
    const stranger = { ...fixtureEvents[0], sessionId: "older-one" };
    const merged = applySessionEvents([row], [stranger], new Set(["older-one"]));
    expect(merged).toMatchObject({ unknownSession: false, unknownIds: [] });
    expect(merged.sessions).toEqual([row]);
  });

  it("drops rows archived, unarchived or deleted out of the list's archived filter", () => {
    const action = (seq: number, sessionId: string, action: string, detail: Record<string, unknown> = {}) =>
      ({
        seq,
        sessionId,
        ts: 5_000 + seq,
        type: "operator.action",
        data: { actor: "op", action, target: SESSION, detail },
      }) as MonitorEvent;
    const other = summaryRow({ id: "other" });
    const archive = action(1, SESSION, "session.archive", { archivedAt: 4_000 });
    // The default list hides archived sessions; "include" keeps the row, marked.
    expect(applySessionEvents([row, other], [archive]).sessions.map((s) => s.id)).toEqual(["other"]);
    const kept = applySessionEvents([row], [archive], new Set(), "include").sessions;
    expect(kept).toMatchObject([{ id: SESSION, archivedAt: 4_000, running: false }]);
    // The archived list drops a row once it is unarchived.
    const archivedRow = summaryRow({ archivedAt: 4_000, lastSeq: 1 });
    expect(
      applySessionEvents([archivedRow], [action(2, SESSION, "session.unarchive")], new Set(), "only").sessions,
    ).toEqual([]);
    // A delete comes on the global stream, which never asks for a refetch.
    const deleted = applySessionEvents([row, other], [action(9, "_global", "session.delete")], new Set(), "include");
    expect(deleted.sessions.map((s) => s.id)).toEqual(["other"]);
    expect(deleted.unknownSession).toBe(false);
    // Other operator actions change nothing but the row's seq.
    expect(applySessionEvents([row], [action(3, SESSION, "message.send")]).sessions).toMatchObject([
      { archivedAt: null },
    ]);
  });

  it("resumes each session from its own last seq", () => {
    expect(sessionCursors([row, { ...row, id: "b", lastSeq: 9 }])).toEqual({ [SESSION]: 0, b: 9 });
    expect(sessionCursors(undefined)).toEqual({});
    // Never more than the server takes.
    const many = Array.from({ length: MAX_AFTER_SEQS + 5 }, (_, i) => ({ ...row, id: `s${i}` }));
    expect(Object.keys(sessionCursors(many))).toHaveLength(MAX_AFTER_SEQS);
  });
});

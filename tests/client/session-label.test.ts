// How a session is named where a person reads it: its name, and a detail that tells same-named
// sessions apart (the chat's number, else the tail of its id; a re-run's or fork's time).
import { describe, expect, it } from "vitest";
import { sessionLabel, sessionLabelText, type SessionLabelSource } from "../../lib/client/session-label";

const base: SessionLabelSource = {
  id: "s-714c304b-eefa-4c26-8518-70e75095dd85",
  name: "周末爬山群",
  platform: "dashboard",
  // A dashboard group chat is its own group.
  groupId: "s-714c304b-eefa-4c26-8518-70e75095dd85",
  userId: null,
  createdAt: new Date(2026, 11, 1, 14, 5).getTime(),
};

describe("session labels", () => {
  it("tell two sessions of one name apart by the tail of their ids", () => {
    const other = {
      ...base,
      id: "s-0b8f3e4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
      groupId: "s-0b8f3e4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
    };
    expect(sessionLabel(base.id, base)).toMatchObject({ name: "周末爬山群", detail: "…5095dd85" });
    expect(sessionLabelText(other.id, other)).toBe("周末爬山群 (…2e3f4a5b)");
    expect(sessionLabelText(base.id, base)).not.toBe(sessionLabelText(other.id, other));
    expect(sessionLabel(base.id, base).title).toBe(`${base.id} · dashboard · 2026-12-01 14:05:00`);
  });

  it("name a platform chat's number, and a re-run's time", () => {
    const qq = { ...base, id: "qq:10001:group:123456", platform: "qq", groupId: "123456" };
    expect(sessionLabel(qq.id, qq).detail).toBe("123456");
    const rerun = { ...base, name: "周末爬山群 · re-run", origin: { kind: "rerun" } };
    expect(sessionLabel(rerun.id, rerun).detail).toBe("…5095dd85 · 12-01 14:05");
  });

  it("show only the id of a session not known (deleted, not looked up yet) or named by its id", () => {
    expect(sessionLabel("gone")).toEqual({ name: "gone", detail: "", title: "gone" });
    expect(sessionLabel(base.id, { ...base, name: base.id }).detail).toBe("");
    expect(sessionLabelText(base.id, { ...base, name: "" })).toBe(base.id);
  });
});

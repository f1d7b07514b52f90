import { describe, expect, it } from "vitest";
import { ToggleState } from "../../server/tools/toggles";

describe("ToggleState", () => {
  it("enables every tool by default", () => {
    const state = new ToggleState();
    expect(state.isEnabled("reply", "s1")).toBe(true);
    expect(state.isEnabled("reply", undefined)).toBe(true);
    expect(state.effectiveToggle("reply", "s1")).toBeNull();
  });

  it("applies global toggles to every session and to the global view", () => {
    const state = new ToggleState([{ toolName: "reply", scope: "global", sessionId: null, enabled: false }]);
    expect(state.isEnabled("reply", "s1")).toBe(false);
    expect(state.isEnabled("reply", undefined)).toBe(false);
    expect(state.isEnabled("finish", "s1")).toBe(true);
  });

  it("lets a session toggle win over the global one, in both directions", () => {
    const state = new ToggleState([
      { toolName: "reply", scope: "global", sessionId: null, enabled: false },
      { toolName: "reply", scope: "session", sessionId: "s1", enabled: true },
      { toolName: "wait", scope: "session", sessionId: "s2", enabled: false },
    ]);
    expect(state.isEnabled("reply", "s1")).toBe(true);
    expect(state.isEnabled("reply", "s2")).toBe(false);
    expect(state.isEnabled("wait", "s2")).toBe(false);
    expect(state.isEnabled("wait", "s1")).toBe(true);
    expect(state.isEnabled("wait", undefined)).toBe(true);
    expect(state.effectiveToggle("reply", "s1")).toMatchObject({ scope: "session", enabled: true });
  });

  it("updates in place with apply", () => {
    const state = new ToggleState();
    state.apply({ toolName: "reply", scope: "global", sessionId: null, enabled: false });
    expect(state.isEnabled("reply", "s1")).toBe(false);
    state.apply({ toolName: "reply", scope: "global", sessionId: null, enabled: true });
    expect(state.isEnabled("reply", "s1")).toBe(true);
    expect(state.list()).toEqual([{ toolName: "reply", scope: "global", sessionId: null, enabled: true }]);
  });

  it("ignores a session toggle that names no session", () => {
    const state = new ToggleState([{ toolName: "reply", scope: "session", sessionId: null, enabled: false }]);
    expect(state.isEnabled("reply", "s1")).toBe(true);
    expect(state.list()).toEqual([]);
  });
});

// Small UI-agnostic helpers: search highlighting, schema outline, connection state, theme, formats.
import { describe, expect, it } from "vitest";
import { createConnectionStore } from "../../lib/client/connection-store";
import { formatDuration, formatPlayhead, shortId } from "../../lib/client/format";
import { outlineSchema } from "../../lib/client/schema-outline";
import { countMatches, messageSearchText, splitMatches } from "../../lib/client/text-search";
import { effectiveTheme, nextPreference, parseThemePreference } from "../../lib/client/theme";

describe("text search", () => {
  it("splits text into plain and matching pieces, case-insensitively", () => {
    expect(splitMatches("Reply to reply", "REPLY")).toEqual([
      { text: "Reply", match: true },
      { text: " to ", match: false },
      { text: "reply", match: true },
    ]);
    expect(splitMatches("abc", "")).toEqual([{ text: "abc", match: false }]);
    expect(countMatches("<script>x</script>", "script")).toBe(2);
  });

  it("searches message content and tool calls", () => {
    const text = messageSearchText({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "1", type: "function", function: { name: "reply", arguments: '{"msg_id":"m5"}' } }],
    });
    expect(text).toContain("reply");
    expect(text).toContain("m5");
  });
});

describe("outlineSchema", () => {
  it("lists properties with types, required marks, constraints and nesting", () => {
    const rows = outlineSchema({
      type: "object",
      required: ["words"],
      properties: {
        words: { type: "array", items: { type: "string" }, minItems: 1, description: "terms" },
        mode: { type: "string", enum: ["search", "time"], default: "search" },
        range: { type: "object", properties: { from: { type: "integer", minimum: 0 } } },
      },
    });
    expect(rows.map((r) => [r.path, r.type, r.required, r.depth])).toEqual([
      ["words", "string[]", true, 0],
      ["mode", '"search" | "time"', false, 0],
      ["range", "object", false, 0],
      ["range.from", "integer", false, 1],
    ]);
    expect(rows[0].constraints).toEqual(["min items 1"]);
    expect(rows[1].constraints).toEqual(['default "search"']);
    expect(outlineSchema(undefined)).toEqual([]);
  });
});

describe("connection store", () => {
  it("reports the worst live subscription and when the connection was lost", () => {
    let now = 100;
    const store = createConnectionStore(() => now);
    expect(store.getSnapshot().socket).toBe("idle");
    const a = store.register();
    const b = store.register();
    a.report("live");
    b.report("live");
    expect(store.getSnapshot()).toMatchObject({ socket: "live", lostAt: null });
    b.report("offline", "transport close");
    expect(store.getSnapshot()).toMatchObject({ socket: "offline", lostAt: 100 });
    now = 200;
    store.setHttpReachable(false);
    expect(store.getSnapshot().lostAt).toBe(100);
    b.release();
    store.setHttpReachable(true);
    expect(store.getSnapshot()).toMatchObject({ socket: "live", lostAt: null });
  });
});

describe("theme and formats", () => {
  it("resolves the theme preference", () => {
    expect(parseThemePreference("dark")).toBe("dark");
    expect(parseThemePreference("purple")).toBe("system");
    expect(effectiveTheme("system", true)).toBe("dark");
    expect(effectiveTheme("light", true)).toBe("light");
    expect(nextPreference("system")).toBe("dark");
    expect(nextPreference("dark")).toBe("light");
    expect(nextPreference("light")).toBe("system");
  });

  it("formats durations, playhead times and ids compactly", () => {
    expect(formatDuration(340)).toBe("340 ms");
    expect(formatDuration(1_234)).toBe("1.23 s");
    expect(formatDuration(125_000)).toBe("2m 05s");
    expect(formatDuration(null)).toBe("–");
    expect(formatPlayhead(65_400)).toBe("01:05.4");
    expect(formatPlayhead(3_725_000)).toBe("1:02:05.0");
    expect(shortId("op-2abeb325-a6c3-4354-9c47-bfc2049b886a")).toBe("…049b886a");
    expect(shortId("m5")).toBe("m5");
  });
});

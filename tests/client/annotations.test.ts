// Annotation hints: every MCP hint shown, explicit vs spec default, applicability, audience, priority.
import { describe, expect, it } from "vitest";
import { HINT_KEYS, describePriority, resolveHints } from "../../lib/client/annotations";
import { MCP_HINT_DEFAULTS, toolAnnotationSchema } from "../../lib/tools/schemas";

const byKey = (a: Parameters<typeof resolveHints>[0]) => Object.fromEntries(resolveHints(a).map((h) => [h.key, h]));

describe("resolveHints", () => {
  it("shows all four hints with the spec defaults when none is given", () => {
    const hints = resolveHints(undefined);
    expect(hints.map((h) => h.key)).toEqual(HINT_KEYS);
    for (const h of hints) {
      expect(h.explicit).toBe(false);
      expect(h.value).toBe(MCP_HINT_DEFAULTS[h.key]);
    }
    const h = byKey(undefined);
    expect(h.destructiveHint.label).toBe("destructive");
    expect(h.destructiveHint.tone).toBe("caution");
    expect(h.openWorldHint.label).toBe("open world");
  });

  it("marks exactly the hints the provider set as explicit, including explicit false", () => {
    const h = byKey(toolAnnotationSchema.parse({ readOnlyHint: false, openWorldHint: false }));
    expect(h.readOnlyHint).toMatchObject({ explicit: true, value: false, label: "writes" });
    expect(h.openWorldHint).toMatchObject({ explicit: true, value: false, label: "closed world", tone: "safe" });
    expect(h.destructiveHint).toMatchObject({ explicit: false, value: true });
    expect(h.idempotentHint).toMatchObject({ explicit: false, value: false });
  });

  it("says destructive and idempotent do not apply to a read-only tool", () => {
    const h = byKey(toolAnnotationSchema.parse({ readOnlyHint: true }));
    expect(h.readOnlyHint).toMatchObject({ explicit: true, value: true, tone: "safe" });
    expect(h.destructiveHint.applicable).toBe(false);
    expect(h.destructiveHint.tone).toBe("neutral");
    expect(h.idempotentHint.applicable).toBe(false);
    expect(h.openWorldHint.applicable).toBe(true);
  });

  it("describes priority in bands and skips it when absent", () => {
    expect(describePriority(toolAnnotationSchema.parse({ priority: 0.8 }))).toBe("0.8 (high)");
    expect(describePriority(toolAnnotationSchema.parse({ priority: 0.5 }))).toBe("0.5 (medium)");
    expect(describePriority(toolAnnotationSchema.parse({ priority: 0 }))).toBe("0 (low)");
    expect(describePriority(toolAnnotationSchema.parse({}))).toBeNull();
  });
});

// Stage ids are shown through per-locale display names; Chinese unless asked otherwise.
import { describe, expect, it } from "vitest";
import { monitorEventSchema, stageIdSchema } from "../../lib/events/schemas";
import { stageLabel } from "../../lib/i18n/stages";

describe("stage labels", () => {
  it("names every stage id in zh-CN (the default) and en", () => {
    for (const id of stageIdSchema.options) {
      expect(stageLabel(id)).not.toBe(id);
      expect(stageLabel(id, "en").length).toBeGreaterThan(0);
    }
    expect(stageLabel("idle")).toBe("空闲");
    expect(stageLabel("tool")).toBe("工具执行");
    expect(stageLabel("cooldown", "en")).toBe("Cooldown");
  });

  it("shows an unknown or empty stage as it is", () => {
    expect(stageLabel("")).toBe("");
    expect(stageLabel("toString")).toBe("toString");
  });

  it("reads stage names of ledgers written before stage ids (they still replay)", () => {
    const legacy = (stage: string) =>
      monitorEventSchema.parse({
        seq: 1,
        sessionId: "s1",
        type: "stage.status",
        ts: 0,
        data: { stage, detail: "", roundText: "", agentState: "running", stageStartedAt: 0 },
      }).data;
    expect(legacy("空闲")).toMatchObject({ stage: "idle" });
    expect(legacy("Timing Gate")).toMatchObject({ stage: "timing_gate" });
    expect(legacy("工具执行 · reply")).toMatchObject({ stage: "tool", detail: "reply" });
    expect(() => legacy("something else")).toThrow();
  });
});

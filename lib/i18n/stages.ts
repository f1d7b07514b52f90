// Display names of the runtime's stages (lib/events/schemas.ts stageIdSchema) per locale, each
// wholly in its language. Chinese unless told otherwise, as the engine's original stage names were;
// the dashboard passes the operator's choice (lib/i18n/messages.ts).
import type { StageId } from "../events/schemas";

export type DisplayLocale = "zh-CN" | "en";

const labels: Record<DisplayLocale, Record<StageId, string>> = {
  "zh-CN": {
    idle: "空闲",
    collecting: "消息整理",
    timing_gate: "节奏判断",
    planner: "行动规划",
    planner_interrupted: "行动规划已打断",
    tool: "工具执行",
    cooldown: "冷却",
    waiting: "等待消息",
  },
  en: {
    idle: "Idle",
    collecting: "Collecting messages",
    timing_gate: "Timing gate",
    planner: "Planner",
    planner_interrupted: "Planner interrupted",
    tool: "Running tool",
    cooldown: "Cooldown",
    waiting: "Waiting for messages",
  },
};

function isStageId(value: string): value is StageId {
  return Object.hasOwn(labels["zh-CN"], value);
}

/** The stage's display name; an unknown or empty id is shown as it is. */
export function stageLabel(stage: string, locale: DisplayLocale = "zh-CN"): string {
  return isStageId(stage) ? labels[locale][stage] : stage;
}

// Display names of what behaviour analytics counts (gate decisions, cycle end reasons, silence
// reasons) per locale, each wholly in its language; an unknown value is shown as it is.
import type { SilenceReason } from "../api/analytics";
import type { TimingAction } from "../events/schemas";
import type { DisplayLocale } from "./stages";

const gate: Record<DisplayLocale, Record<TimingAction, string>> = {
  "zh-CN": { continue: "继续", no_action: "不行动", wait: "等待" },
  en: { continue: "continue", no_action: "no action", wait: "wait" },
};

/** Cycle end reasons as the charts group them (every tool_pause:<tool> is "tool_pause"). */
const endReasons: Record<DisplayLocale, Record<string, string>> = {
  "zh-CN": {
    continue: "继续",
    tool_continue: "工具后继续",
    timing_wait: "节奏判断：等待",
    timing_no_action: "节奏判断：不行动",
    finish: "结束",
    empty_planner_response: "规划无回应",
    planner_interrupted: "规划被打断",
    max_rounds: "达到轮数上限",
    llm_error: "模型错误",
    tool_pause: "工具暂停",
  },
  en: {
    continue: "continue",
    tool_continue: "continue after tools",
    timing_wait: "gate: wait",
    timing_no_action: "gate: no action",
    finish: "finish",
    empty_planner_response: "empty planner response",
    planner_interrupted: "planner interrupted",
    max_rounds: "max rounds",
    llm_error: "model error",
    tool_pause: "tool pause",
  },
};

const silences: Record<DisplayLocale, Record<SilenceReason, string>> = {
  "zh-CN": {
    gate_no_action: "节奏判断：不行动",
    gate_wait: "节奏判断：等待",
    threshold: "未达消息阈值",
    cooldown: "冷却中",
    wait: "等待中",
    debounce: "消息防抖",
    llm_error: "模型错误",
    no_reply: "回合结束未回复",
    stopped: "会话停止",
    none: "未记录原因",
  },
  en: {
    gate_no_action: "gate: no action",
    gate_wait: "gate: wait",
    threshold: "below threshold",
    cooldown: "cooldown",
    wait: "waiting",
    debounce: "debounce",
    llm_error: "model error",
    no_reply: "turn ended without a reply",
    stopped: "session stopped",
    none: "no reason recorded",
  },
};

export function gateActionLabel(action: string, locale: DisplayLocale): string {
  return Object.hasOwn(gate[locale], action) ? gate[locale][action as TimingAction] : action;
}

export function endReasonLabel(reason: string, locale: DisplayLocale): string {
  const key = reason.startsWith("tool_pause:") ? "tool_pause" : reason;
  const label = Object.hasOwn(endReasons[locale], key) ? endReasons[locale][key] : reason;
  return key === "tool_pause" && reason !== key ? `${label} · ${reason.slice("tool_pause:".length)}` : label;
}

export function silenceReasonLabel(reason: string, locale: DisplayLocale): string {
  return Object.hasOwn(silences[locale], reason) ? silences[locale][reason as SilenceReason] : reason;
}

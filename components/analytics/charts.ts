// The analytics series as TimeChart series: one per gate action, end reason or silence reason, in a
// fixed order, each in its theme colour and named in the operator's language.
import type { AnalyticsSeries, SilenceReason } from "../../lib/api/analytics";
import type { TimingAction } from "../../lib/events/schemas";
import { endReasonLabel, gateActionLabel, silenceReasonLabel } from "../../lib/i18n/analytics";
import type { DisplayLocale } from "../../lib/i18n/stages";
import type { ChartColor, ChartSeries } from "../ui/charts/TimeChart";

const GATE: [TimingAction, ChartColor][] = [
  ["continue", "ok"],
  ["no_action", "muted"],
  ["wait", "warn"],
];

const END_REASONS: [string, ChartColor][] = [
  ["finish", "ok"],
  ["tool_continue", "accent"],
  ["continue", "info"],
  ["tool_pause", "info"],
  ["timing_no_action", "muted"],
  ["timing_wait", "warn"],
  ["planner_interrupted", "sim"],
  ["empty_planner_response", "bad"],
  ["max_rounds", "bad"],
  ["llm_error", "bad"],
];

const SILENCES: [SilenceReason, ChartColor][] = [
  ["gate_no_action", "muted"],
  ["gate_wait", "warn"],
  ["threshold", "info"],
  ["cooldown", "accent"],
  ["wait", "warn"],
  ["debounce", "sim"],
  ["llm_error", "bad"],
  ["no_reply", "bad"],
  ["stopped", "muted"],
  ["none", "muted"],
];

/** A stacked part and what a click on it lists (the metric's value). */
export interface PartSeries extends ChartSeries {
  value: string;
}

export function gateSeries(s: AnalyticsSeries, locale: DisplayLocale): PartSeries[] {
  return GATE.map(([action, color]) => ({
    value: action,
    label: gateActionLabel(action, locale),
    values: s.gate[action],
    color,
  }));
}

/** Known reasons first in a fixed order, then any other the ledger holds. */
export function endReasonSeries(s: AnalyticsSeries, locale: DisplayLocale): PartSeries[] {
  const known = new Set(END_REASONS.map(([r]) => r));
  const parts: [string, ChartColor][] = [
    ...END_REASONS.filter(([r]) => s.endReasons[r]),
    ...Object.keys(s.endReasons)
      .filter((r) => !known.has(r))
      .sort()
      .map((r): [string, ChartColor] => [r, "muted"]),
  ];
  return parts.map(([reason, color]) => ({
    value: reason,
    label: endReasonLabel(reason, locale),
    values: s.endReasons[reason] ?? [],
    color,
  }));
}

export function silenceSeries(s: AnalyticsSeries, locale: DisplayLocale): PartSeries[] {
  return SILENCES.filter(([r]) => s.silences[r]).map(([reason, color]) => ({
    value: reason,
    label: silenceReasonLabel(reason, locale),
    values: s.silences[reason] ?? [],
    color,
  }));
}

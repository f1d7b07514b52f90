// Tool annotations as operators need them: all four MCP hints with their effective value and
// whether the provider said so or the spec default applies (MCP_HINT_DEFAULTS), plus audience and
// priority. Inspector shows truthy hints only, which hides "destructive by default".
import { translate, type Translate } from "../i18n/messages";
import { MCP_HINT_DEFAULTS, type ToolAnnotation } from "../tools/schemas";

export type HintKey = keyof typeof MCP_HINT_DEFAULTS;
export const HINT_KEYS = Object.keys(MCP_HINT_DEFAULTS) as HintKey[];

export interface ResolvedHint {
  key: HintKey;
  /** Short label for the effective value, e.g. "read-only" / "writes". */
  label: string;
  value: boolean;
  explicit: boolean;
  /** destructive/idempotent mean nothing for a read-only tool (MCP spec). */
  applicable: boolean;
  tone: "safe" | "caution" | "neutral";
  explanation: string;
}

const TONE: Record<HintKey, (v: boolean) => ResolvedHint["tone"]> = {
  readOnlyHint: (v) => (v ? "safe" : "neutral"),
  destructiveHint: (v) => (v ? "caution" : "safe"),
  idempotentHint: (v) => (v ? "safe" : "neutral"),
  openWorldHint: (v) => (v ? "caution" : "safe"),
};

/** Labels in English unless the page passes its locale's `t`. */
const english: Translate = (key, vars) => translate("en", key, vars);

export function resolveHints(annotation: ToolAnnotation | undefined, t: Translate = english): ResolvedHint[] {
  const readOnly = annotation?.readOnlyHint ?? MCP_HINT_DEFAULTS.readOnlyHint;
  return HINT_KEYS.map((key) => {
    const given = annotation?.[key];
    const value = given ?? MCP_HINT_DEFAULTS[key];
    const applicable = !(readOnly && (key === "destructiveHint" || key === "idempotentHint"));
    return {
      key,
      label: t(`hints.${key}.${value ? "on" : "off"}`),
      value,
      explicit: given !== undefined,
      applicable,
      tone: applicable ? TONE[key](value) : "neutral",
      explanation: t(`hints.${key}.explain`),
    };
  });
}

/** "0.8 (high)" style label for MCP priority (0..1); null when absent. */
export function describePriority(annotation: ToolAnnotation | undefined, t: Translate = english): string | null {
  const p = annotation?.priority;
  if (p === undefined || !Number.isFinite(p)) return null;
  const band = p >= 0.7 ? "high" : p >= 0.3 ? "medium" : "low";
  return `${Number(p.toFixed(2))} (${t(`hints.band.${band}`)})`;
}

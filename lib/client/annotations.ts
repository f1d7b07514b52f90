// Tool annotations as operators need them: all four MCP hints with their effective value and
// whether the provider said so or the spec default applies (MCP_HINT_DEFAULTS), plus audience and
// priority. Inspector shows truthy hints only, which hides "destructive by default".
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

const COPY: Record<HintKey, { on: string; off: string; tone: (v: boolean) => ResolvedHint["tone"]; explain: string }> =
  {
    readOnlyHint: {
      on: "read-only",
      off: "writes",
      tone: (v) => (v ? "safe" : "neutral"),
      explain: "Whether the tool only reads and never modifies its environment.",
    },
    destructiveHint: {
      on: "destructive",
      off: "additive",
      tone: (v) => (v ? "caution" : "safe"),
      explain: "Whether a modifying tool may delete or overwrite, rather than only add.",
    },
    idempotentHint: {
      on: "idempotent",
      off: "not idempotent",
      tone: (v) => (v ? "safe" : "neutral"),
      explain: "Whether repeating a call with the same arguments has no further effect.",
    },
    openWorldHint: {
      on: "open world",
      off: "closed world",
      tone: (v) => (v ? "caution" : "safe"),
      explain: "Whether the tool reaches outside entities (the web, other people), not only a closed domain.",
    },
  };

export function resolveHints(annotation: ToolAnnotation | undefined): ResolvedHint[] {
  const readOnly = annotation?.readOnlyHint ?? MCP_HINT_DEFAULTS.readOnlyHint;
  return HINT_KEYS.map((key) => {
    const given = annotation?.[key];
    const value = given ?? MCP_HINT_DEFAULTS[key];
    const copy = COPY[key];
    const applicable = !(readOnly && (key === "destructiveHint" || key === "idempotentHint"));
    return {
      key,
      label: value ? copy.on : copy.off,
      value,
      explicit: given !== undefined,
      applicable,
      tone: applicable ? copy.tone(value) : "neutral",
      explanation: copy.explain,
    };
  });
}

/** "0.8 (high)" style label for MCP priority (0..1); null when absent. */
export function describePriority(annotation: ToolAnnotation | undefined): string | null {
  const p = annotation?.priority;
  if (p === undefined || !Number.isFinite(p)) return null;
  const band = p >= 0.7 ? "high" : p >= 0.3 ? "medium" : "low";
  return `${Number(p.toFixed(2))} (${band})`;
}

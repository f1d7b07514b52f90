// The diff of two cycle views (docs/rerun.md "Diff"): per section, entries marked same, changed,
// added (only in b) or removed (only in a), changed strings with their inline text diff, and the
// first difference. Strings are compared after normalizeText; ids (cycle, tool call, bot message)
// are not compared at all.
import { diffArrays } from "diff";
import { z } from "zod";
import type { ContextItem, CycleView } from "./cycle-view";
import { diffText, normalizeText, textDiffSchema } from "./normalize";

export const sectionIdSchema = z.enum([
  "gateContext",
  "gate",
  "plannerContext",
  "toolsOffered",
  "toolsWithheld",
  "planner",
  "toolCalls",
  "toolResults",
  "sent",
  "end",
  "usage",
  "timings",
]);
export type SectionId = z.infer<typeof sectionIdSchema>;

/**
 * Sections shown but not counted: wall-clock durations differ between any two runs. They are
 * marked like the others, and never make a cycle differ nor give its first difference.
 */
export const UNCOUNTED_SECTIONS: ReadonlySet<SectionId> = new Set(["timings"]);

export const entryStatusSchema = z.enum(["same", "changed", "added", "removed"]);
export type EntryStatus = z.infer<typeof entryStatusSchema>;

export const diffEntrySchema = z.object({
  /** The item: a field name, or a list item's label ("3 · user", a tool's name). */
  key: z.string(),
  /** A list item's field ("result", "success"); absent for plain fields. */
  field: z.string().optional(),
  status: entryStatusSchema,
  /** Each side's text as recorded (null: not on that side). */
  a: z.string().nullable(),
  b: z.string().nullable(),
  /** changed: where the texts differ. */
  parts: textDiffSchema.optional(),
});
export type DiffEntry = z.infer<typeof diffEntrySchema>;

export const diffSectionSchema = z.object({
  id: sectionIdSchema,
  status: z.enum(["same", "changed"]),
  counted: z.boolean(),
  entries: z.array(diffEntrySchema),
});
export type DiffSection = z.infer<typeof diffSectionSchema>;

/** Longest text a first difference quotes of each side. */
const QUOTE_CHARS = 300;

export const firstDifferenceSchema = z.object({
  section: sectionIdSchema,
  key: z.string(),
  field: z.string().optional(),
  status: entryStatusSchema.exclude(["same"]),
  a: z.string().nullable(),
  b: z.string().nullable(),
});
export type FirstDifference = z.infer<typeof firstDifferenceSchema>;

export const cycleSideSchema = z.object({
  sessionId: z.string(),
  cycleId: z.string(),
  index: z.number().int(),
  startedAt: z.number().nullable(),
  complete: z.boolean(),
});

export const cycleDiffSchema = z.object({
  kind: z.literal("cycle"),
  a: cycleSideSchema,
  b: cycleSideSchema,
  status: z.enum(["same", "changed"]),
  sections: z.array(diffSectionSchema),
  first: firstDifferenceSchema.nullable(),
});
export type CycleDiff = z.infer<typeof cycleDiffSchema>;

type Value = string | number | boolean | null | undefined;

const asText = (v: Value): string | null => (v === null || v === undefined ? null : String(v));

/** One field on both sides. */
function entry(key: string, a: Value, b: Value, field?: string): DiffEntry {
  const ta = asText(a);
  const tb = asText(b);
  const base = field === undefined ? { key } : { key, field };
  if (ta === null && tb === null) return { ...base, status: "same", a: null, b: null };
  if (ta === null) return { ...base, status: "added", a: null, b: tb };
  if (tb === null) return { ...base, status: "removed", a: ta, b: null };
  if (normalizeText(ta) === normalizeText(tb)) return { ...base, status: "same", a: ta, b: tb };
  return { ...base, status: "changed", a: ta, b: tb, parts: diffText(ta, tb) };
}

/** The fields of an object present on one side or both (null/undefined sides mean absent). */
function fields<T extends object>(a: T | null, b: T | null, pick: (x: T) => Record<string, Value>): DiffEntry[] {
  const pa = a ? pick(a) : {};
  const pb = b ? pick(b) : {};
  const keys = [...new Set([...Object.keys(pa), ...Object.keys(pb)])];
  return keys.map((k) => entry(k, pa[k], pb[k]));
}

/**
 * Two lists aligned in order by their items' normalised identity; a run of removed items right
 * before a run of added ones is paired up as changed items, field by field.
 */
function aligned<T>(
  a: readonly T[],
  b: readonly T[],
  identity: (x: T) => string,
  label: (x: T, index: number) => string,
  pick: (x: T) => Record<string, Value>,
): DiffEntry[] {
  const ids = (xs: readonly T[]) => xs.map((x) => normalizeText(identity(x)));
  const changes = diffArrays(ids(a), ids(b));
  const out: DiffEntry[] = [];
  const emit = (x: T | null, y: T | null, i: number, j: number) => {
    const fa = x ? pick(x) : {};
    const fb = y ? pick(y) : {};
    const key = y ? label(y, j) : label(x as T, i); // one side at least
    const names = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
    const single = names.length === 1;
    for (const name of names) out.push(entry(key, fa[name], fb[name], single ? undefined : name));
  };
  let i = 0;
  let j = 0;
  for (let c = 0; c < changes.length; c++) {
    const change = changes[c];
    const next = changes[c + 1];
    if (change.removed && next?.added) {
      const paired = Math.min(change.count, next.count);
      for (let k = 0; k < paired; k++) emit(a[i + k], b[j + k], i + k, j + k);
      for (let k = paired; k < change.count; k++) emit(a[i + k], null, i + k, -1);
      for (let k = paired; k < next.count; k++) emit(null, b[j + k], -1, j + k);
      i += change.count;
      j += next.count;
      c++;
    } else if (change.removed) {
      for (let k = 0; k < change.count; k++) emit(a[i + k], null, i + k, -1);
      i += change.count;
    } else if (change.added) {
      for (let k = 0; k < change.count; k++) emit(null, b[j + k], -1, j + k);
      j += change.count;
    } else {
      for (let k = 0; k < change.count; k++) emit(a[i + k], b[j + k], i + k, j + k);
      i += change.count;
      j += change.count;
    }
  }
  return out;
}

/** Lists keyed by name: order of a, then names only in b. */
function byName<T extends { name: string }>(
  a: readonly T[],
  b: readonly T[],
  pick: (x: T) => Record<string, Value>,
): DiffEntry[] {
  const ma = new Map(a.map((x) => [x.name, x]));
  const mb = new Map(b.map((x) => [x.name, x]));
  const names = [...new Set([...ma.keys(), ...mb.keys()])];
  return names.flatMap((name) => {
    const fa = ma.has(name) ? pick(ma.get(name) as T) : {};
    const fb = mb.has(name) ? pick(mb.get(name) as T) : {};
    const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
    return keys.map((k) => entry(name, fa[k], fb[k], keys.length === 1 ? undefined : k));
  });
}

const contextList = (a: ContextItem[] | null, b: ContextItem[] | null) =>
  aligned(
    a ?? [],
    b ?? [],
    (m) => `${m.role}\n${m.text}`,
    (m, i) => `${i + 1} · ${m.role}`,
    (m) => ({ text: m.text }),
  );

function section(id: SectionId, entries: DiffEntry[]): DiffSection {
  return {
    id,
    status: entries.every((e) => e.status === "same") ? "same" : "changed",
    counted: !UNCOUNTED_SECTIONS.has(id),
    entries,
  };
}

export function diffCycles(a: CycleView, b: CycleView): CycleDiff {
  const sections = [
    section("gateContext", contextList(a.gateContext, b.gateContext)),
    section(
      "gate",
      fields(a.gate, b.gate, (g) => ({
        model: g.model,
        action: g.action,
        content: g.content,
        reasoning: g.reasoning,
        toolCalls: g.toolCalls.map((c) => `${c.name} ${c.arguments}`).join("\n"),
        waitSeconds: g.waitSeconds,
        forced: g.forced,
        attempts: g.attempts,
      })),
    ),
    section("plannerContext", contextList(a.plannerContext, b.plannerContext)),
    section(
      "toolsOffered",
      byName(a.toolsOffered, b.toolsOffered, (t) => ({ description: t.description, parameters: t.parameters })),
    ),
    section(
      "toolsWithheld",
      byName(a.toolsWithheld, b.toolsWithheld, (t) => ({ reason: t.reason })),
    ),
    section(
      "planner",
      fields(a.planner, b.planner, (p) => ({
        model: p.model,
        content: p.content,
        reasoning: p.reasoning,
        dedupReplaced: p.dedupReplaced,
      })),
    ),
    section(
      "toolCalls",
      aligned(
        a.planner?.toolCalls ?? [],
        b.planner?.toolCalls ?? [],
        (c) => `${c.name}\n${c.arguments}`,
        (c) => c.name,
        (c) => ({ arguments: c.arguments }),
      ),
    ),
    section(
      "toolResults",
      aligned(
        a.toolResults,
        b.toolResults,
        (t) => `${t.toolName}\n${t.success}\n${t.result}`,
        (t) => t.toolName,
        (t) => ({ success: t.success, result: t.result }),
      ),
    ),
    section(
      "sent",
      aligned(
        a.sent,
        b.sent,
        (s) => `${s.kind}\n${s.content}`,
        (s, i) => `${i + 1} · ${s.kind}`,
        (s) => ({ content: s.content, replyTo: s.replyTo }),
      ),
    ),
    section(
      "end",
      fields(a.end, b.end, (e) => ({ ...e })),
    ),
    section(
      "usage",
      fields(a.usage, b.usage, (u) => ({ ...u })),
    ),
    section("timings", timingEntries(a, b)),
  ];
  const first = firstDifference(sections);
  return {
    kind: "cycle",
    a: side(a),
    b: side(b),
    status: first ? "changed" : "same",
    sections,
    first,
  };
}

function timingEntries(a: CycleView, b: CycleView): DiffEntry[] {
  const pick = (v: CycleView): Record<string, Value> => ({
    durationMs: v.timings.durationMs,
    gateMs: v.timings.gateMs,
    // The configured cooldown less the gate's own duration: a clock reading like the others.
    cooldownMs: v.gate?.cooldownMs ?? null,
    plannerMs: v.timings.plannerMs,
    ...Object.fromEntries(Object.entries(v.timings.timeRecords).map(([k, ms]) => [`timeRecords.${k}`, ms])),
    ...Object.fromEntries(v.toolResults.map((t, i) => [`tool ${i + 1} · ${t.toolName}`, t.durationMs])),
  });
  return fields(a, b, pick);
}

const side = (v: CycleView) => ({
  sessionId: v.sessionId,
  cycleId: v.cycleId,
  index: v.index,
  startedAt: v.startedAt,
  complete: v.complete,
});

const quote = (text: string | null) =>
  text !== null && text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;

/** The first entry that differs, in section order (the order a cycle runs in), counted sections only. */
export function firstDifference(sections: readonly DiffSection[]): FirstDifference | null {
  for (const s of sections) {
    if (!s.counted) continue;
    const e = s.entries.find((x) => x.status !== "same");
    if (!e || e.status === "same") continue;
    return {
      section: s.id,
      key: e.key,
      ...(e.field === undefined ? {} : { field: e.field }),
      status: e.status,
      a: quote(e.a),
      b: quote(e.b),
    };
  }
  return null;
}

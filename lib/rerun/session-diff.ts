// The diff of two sessions: their cycles aligned by position (the first with the first, …), each
// pair summarised as same or changed with the sections that differ and its first difference;
// cycles only one side has are added (only in b) or removed (only in a). Totals per side.
import { z } from "zod";
import type { CycleView } from "./cycle-view";
import { diffCycles, entryStatusSchema, firstDifferenceSchema, sectionIdSchema } from "./diff";

export const cycleBriefSchema = z.object({
  cycleId: z.string(),
  startedAt: z.number().nullable(),
  gateAction: z.string().nullable(),
  endReason: z.string().nullable(),
  sent: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
});
export type CycleBrief = z.infer<typeof cycleBriefSchema>;

export const sessionDiffRowSchema = z.object({
  index: z.number().int(),
  a: cycleBriefSchema.nullable(),
  b: cycleBriefSchema.nullable(),
  status: entryStatusSchema,
  /** Counted sections that differ (empty unless changed). */
  changedSections: z.array(sectionIdSchema),
  first: firstDifferenceSchema.nullable(),
});
export type SessionDiffRow = z.infer<typeof sessionDiffRowSchema>;

export const sessionTotalsSchema = z.object({
  cycles: z.number().int(),
  messagesSent: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
});
export type SessionTotals = z.infer<typeof sessionTotalsSchema>;

export const sessionSideSchema = z.object({
  sessionId: z.string(),
  /** Over the cycles compared. */
  totals: sessionTotalsSchema,
  /** The session has more cycles than a session diff reads (see `limit`): the rest is not compared. */
  truncated: z.boolean(),
});

export const sessionDiffSchema = z.object({
  kind: z.literal("session"),
  a: sessionSideSchema,
  b: sessionSideSchema,
  /** Cycles read per side at most. */
  limit: z.number().int(),
  rows: z.array(sessionDiffRowSchema),
  counts: z.record(entryStatusSchema, z.number().int()),
});
export type SessionDiff = z.infer<typeof sessionDiffSchema>;

export interface SessionCycles {
  sessionId: string;
  views: readonly CycleView[];
  truncated: boolean;
}

const brief = (v: CycleView): CycleBrief => ({
  cycleId: v.cycleId,
  startedAt: v.startedAt,
  gateAction: v.gate?.action ?? null,
  endReason: v.end.endReason,
  sent: v.sent.length,
  totalTokens: v.usage?.totalTokens ?? 0,
  costUsd: v.usage?.costUsd ?? 0,
});

function totals(views: readonly CycleView[]): SessionTotals {
  return views.reduce(
    (t, v) => ({
      cycles: t.cycles + 1,
      messagesSent: t.messagesSent + v.sent.length,
      totalTokens: t.totalTokens + (v.usage?.totalTokens ?? 0),
      costUsd: t.costUsd + (v.usage?.costUsd ?? 0),
    }),
    { cycles: 0, messagesSent: 0, totalTokens: 0, costUsd: 0 },
  );
}

export function diffSessions(a: SessionCycles, b: SessionCycles, limit: number): SessionDiff {
  const rows: SessionDiffRow[] = [];
  const counts = { same: 0, changed: 0, added: 0, removed: 0 };
  for (let i = 0; i < Math.max(a.views.length, b.views.length); i++) {
    const va = a.views[i];
    const vb = b.views[i];
    let row: SessionDiffRow;
    if (va && vb) {
      const d = diffCycles(va, vb);
      row = {
        index: i,
        a: brief(va),
        b: brief(vb),
        status: d.status,
        changedSections: d.sections.filter((s) => s.counted && s.status === "changed").map((s) => s.id),
        first: d.first,
      };
    } else {
      row = {
        index: i,
        a: va ? brief(va) : null,
        b: vb ? brief(vb) : null,
        status: va ? "removed" : "added",
        changedSections: [],
        first: null,
      };
    }
    counts[row.status]++;
    rows.push(row);
  }
  return {
    kind: "session",
    a: { sessionId: a.sessionId, totals: totals(a.views), truncated: a.truncated },
    b: { sessionId: b.sessionId, totals: totals(b.views), truncated: b.truncated },
    limit,
    rows,
    counts,
  };
}

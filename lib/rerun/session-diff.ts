// The diff of two sessions: their cycles aligned by position (the first with the first, …), each
// pair summarised as same or changed with the sections that differ and its first difference;
// cycles only one side has are added (only in b) or removed (only in a). Totals per side. When one
// side is a fork (or a re-run from a cycle) of the other, the cycles before its fork cycle were
// answered from the recording: they are listed, marked, and left out of the counts.
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
  /** Before the fork cycle: replayed from the original, not counted. */
  beforeFork: z.boolean(),
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
  /** Rows from the fork cycle on (all of them when neither side is a fork of the other). */
  counts: z.record(entryStatusSchema, z.number().int()),
  /** One side was forked (or re-run) from this cycle of the other: the rows before it are not counted. */
  fork: z.object({ index: z.number().int(), cycleId: z.string() }).nullable(),
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

/**
 * `forkCycle`: the cycle one side was forked or re-run from (its origin's fromCycle), a cycle of the
 * other side; the rows before its position are not counted.
 */
export function diffSessions(a: SessionCycles, b: SessionCycles, limit: number, forkCycle?: string): SessionDiff {
  const rows: SessionDiffRow[] = [];
  const counts = { same: 0, changed: 0, added: 0, removed: 0 };
  // Up to the fork both sides hold the same cycles (the same ids): the original's position is either's.
  const at = (side: SessionCycles) => side.views.findIndex((v) => v.cycleId === forkCycle);
  const forkIndex = forkCycle === undefined ? -1 : Math.max(at(a), at(b));
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
        beforeFork: i < forkIndex,
      };
    } else {
      row = {
        index: i,
        a: va ? brief(va) : null,
        b: vb ? brief(vb) : null,
        status: va ? "removed" : "added",
        changedSections: [],
        first: null,
        beforeFork: i < forkIndex,
      };
    }
    if (!row.beforeFork) counts[row.status]++;
    rows.push(row);
  }
  return {
    kind: "session",
    a: { sessionId: a.sessionId, totals: totals(a.views), truncated: a.truncated },
    b: { sessionId: b.sessionId, totals: totals(b.views), truncated: b.truncated },
    limit,
    rows,
    counts,
    fork: forkIndex >= 0 && forkCycle !== undefined ? { index: forkIndex, cycleId: forkCycle } : null,
  };
}

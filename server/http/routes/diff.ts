// GET /api/diff?a=<sessionId>:<cycleId>&b=<sessionId>:<cycleId>: two cycles compared section by
// section; ?a=<sessionId>&b=<sessionId>: two sessions, their cycles aligned by position
// (lib/rerun/diff.ts, lib/rerun/session-diff.ts; the reads are bounded: services/cycle-reader.ts).
// A fork compared with its original is compared from its fork cycle on.
import { diffQuerySchema, diffResponseSchema } from "../../../lib/rerun/diff-api";
import { diffCycles } from "../../../lib/rerun/diff";
import { diffSessions } from "../../../lib/rerun/session-diff";
import type { SessionRecord } from "../../stores/sessions";
import { apiRoute } from "../context";
import { readCycleView, readSessionCycles, SESSION_DIFF_MAX_CYCLES } from "../services/cycle-reader";

export const diffRoute = apiRoute({
  method: "GET",
  path: "/api/diff",
  query: diffQuerySchema,
  response: diffResponseSchema,
  async handle({ query: { a, b } }, ctx) {
    const [sessionA, sessionB] = await Promise.all([
      ctx.sessions.require(a.sessionId),
      ctx.sessions.require(b.sessionId),
    ]);
    if (a.cycleId !== undefined && b.cycleId !== undefined) {
      const [va, vb] = await Promise.all([
        readCycleView(ctx.ledger, a.sessionId, a.cycleId),
        readCycleView(ctx.ledger, b.sessionId, b.cycleId),
      ]);
      return { body: diffCycles(va, vb) };
    }
    const [sa, sb] = await Promise.all([
      readSessionCycles(ctx.ledger, a.sessionId),
      readSessionCycles(ctx.ledger, b.sessionId),
    ]);
    return { body: diffSessions(sa, sb, SESSION_DIFF_MAX_CYCLES, forkCycleOf(sessionA, sessionB)) };
  },
});

/** The cycle one session was forked (or re-run) from when the other is its original. */
function forkCycleOf(a: SessionRecord, b: SessionRecord): string | undefined {
  const derived = b.origin?.sessionId === a.id ? b : a.origin?.sessionId === b.id ? a : null;
  return derived?.origin?.fromCycle ?? undefined;
}

// GET /api/diff: what it takes (`a`, `b`: `<sessionId>:<cycleId>` for two cycles, `<sessionId>` for
// two sessions) and what it answers, and the /diff page's address for the same pair.
import { z } from "zod";
import { idSchema } from "../api/schemas";
import { cycleDiffSchema } from "./diff";
import { sessionDiffSchema } from "./session-diff";

/**
 * Session ids may hold colons (`qq:<self>:group:<peer>`), cycle ids never do and always read
 * `c<N>` (the engine's counter): so a reference ends in `:c<N>` exactly when it names a cycle.
 */
const CYCLE_REF = /^(.+):(c\d+)$/;

export interface DiffRef {
  sessionId: string;
  cycleId?: string;
}

export function parseDiffRef(text: string): DiffRef {
  const m = CYCLE_REF.exec(text);
  return m ? { sessionId: m[1], cycleId: m[2] } : { sessionId: text };
}

export const formatDiffRef = (ref: DiffRef): string =>
  ref.cycleId === undefined ? ref.sessionId : `${ref.sessionId}:${ref.cycleId}`;

const diffRefSchema = z
  .string()
  .max(200)
  .transform(parseDiffRef)
  .superRefine((ref, ctx) => {
    const id = idSchema.safeParse(ref.sessionId);
    if (!id.success)
      ctx.addIssue({
        code: "custom",
        message: `a session id, or <sessionId>:<cycleId> (${id.error.issues[0]?.message})`,
      });
  });

export const diffQuerySchema = z
  .object({ a: diffRefSchema, b: diffRefSchema })
  .refine((q) => (q.a.cycleId === undefined) === (q.b.cycleId === undefined), {
    message: "a and b both name a cycle (<sessionId>:<cycleId>) or both a session",
    path: ["b"],
  });

export const diffResponseSchema = z.discriminatedUnion("kind", [cycleDiffSchema, sessionDiffSchema]);

/** The /diff page of two cycles or two sessions (the re-run banner and the replay link here). */
export function diffHref(a: DiffRef, b: DiffRef): string {
  const q = new URLSearchParams({ a: formatDiffRef(a), b: formatDiffRef(b) });
  return `/diff?${q.toString()}`;
}

/** The API address of the same diff. */
export function diffApiPath(a: DiffRef, b: DiffRef): string {
  const q = new URLSearchParams({ a: formatDiffRef(a), b: formatDiffRef(b) });
  return `/api/diff?${q.toString()}`;
}

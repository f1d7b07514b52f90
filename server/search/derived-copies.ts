// A re-run or fork (a session with an origin) holds, up to the cycle where it diverged from its
// original, copies of the original's events: indexed too, every hit there would be listed twice, once
// per session. The indexers (search-index.ts, pg-index.ts) leave those rows out; what the derived session
// did of its own (from its diverging cycle on) is indexed like any session. An imported session is its
// own, whatever origin its bundle carries (its original may not be here).
import { sessionOriginSchema } from "../../lib/rerun/schemas";

/** Which of a session's rows are copies of its original's. */
export type CopiedPart = { kind: "none" } | { kind: "all" } | { kind: "before"; cycleId: string };

const NONE: CopiedPart = { kind: "none" };
const ALL: CopiedPart = { kind: "all" };

/** From a "ChatSession" row's origin column (JSON text) and imported flag. */
export function copiedPartOf(origin: string | null, imported: boolean): CopiedPart {
  if (origin === null || imported) return NONE;
  let parsed: ReturnType<typeof sessionOriginSchema.safeParse>;
  try {
    parsed = sessionOriginSchema.safeParse(JSON.parse(origin));
  } catch {
    return NONE; // an origin that does not read: the session is shown like any other (sessions store)
  }
  if (!parsed.success) return NONE;
  const divergence = parsed.data.divergence;
  // Reproduced, or only fewer cycles than the original: every event it has is the original's too.
  if (!divergence?.rerunCycleId) return ALL;
  return { kind: "before", cycleId: divergence.rerunCycleId };
}

/**
 * The indexers' view of which rows are copies. Before a batch, an indexer tells it each new session's
 * part (`unknown`, `learn`) and, for a session copied up to a cycle, the seq where that cycle starts once
 * the ledger has it (`boundaryWanted`, `setBoundary`); rows past the mark of a session whose diverging
 * cycle is not written yet are copies (a derived session is written in seq order).
 */
export class CopiedRows {
  private readonly parts = new Map<string, CopiedPart>();
  private readonly boundaries = new Map<string, number>();

  /** The sessions among these whose part is not known yet. */
  unknown(sessionIds: Iterable<string>): string[] {
    return [...new Set(sessionIds)].filter((id) => !this.parts.has(id));
  }

  learn(sessionId: string, part: CopiedPart): void {
    this.parts.set(sessionId, part);
  }

  /** Sessions among these copied up to a cycle whose start's seq is not known yet, with that cycle. */
  boundaryWanted(sessionIds: Iterable<string>): { sessionId: string; cycleId: string }[] {
    return [...new Set(sessionIds)].flatMap((sessionId) => {
      const part = this.parts.get(sessionId);
      return part?.kind === "before" && !this.boundaries.has(sessionId) ? [{ sessionId, cycleId: part.cycleId }] : [];
    });
  }

  setBoundary(sessionId: string, seq: number): void {
    this.boundaries.set(sessionId, seq);
  }

  isCopy(sessionId: string, seq: number): boolean {
    const part = this.parts.get(sessionId);
    if (!part || part.kind === "none") return false;
    if (part.kind === "all") return true;
    const boundary = this.boundaries.get(sessionId);
    return boundary === undefined || seq < boundary;
  }
}

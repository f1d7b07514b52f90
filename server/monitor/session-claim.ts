// A new session whose events are written to the ledger directly (an imported bundle, a re-run's derived
// session) needs an id this node may write: in a cluster only the holder of a session's lease passes the
// ledger's fence, and rendezvous placement decides which ids a node may take (with N nodes, each new id
// is this node's with odds 1/N).
import { randomUUID } from "node:crypto";

/** Takes the lease of a session id if this node may own it; absent: a single process owns every id. */
export type SessionClaim = (sessionId: string) => Promise<boolean>;

const CLAIM_TRIES = 64;

/** `wanted` when it is free to use and this node could take it, else a new `prefix-<uuid>` it took; null when none. */
export async function claimSessionId(
  claim: SessionClaim | undefined,
  prefix: string,
  wanted?: string,
): Promise<string | null> {
  if (wanted !== undefined && (!claim || (await claim(wanted)))) return wanted;
  for (let i = 0; i < CLAIM_TRIES; i++) {
    const id = `${prefix}-${randomUUID()}`;
    if (!claim || (await claim(id))) return id;
  }
  return null;
}

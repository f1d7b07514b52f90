// Rendezvous (highest random weight) placement: a session goes to the live node whose hash of
// (node, session) is highest, so a node joining or leaving moves only the sessions it wins or held.
import { createHash } from "node:crypto";

function weight(nodeId: string, sessionId: string): bigint {
  return createHash("sha256").update(nodeId).update("\0").update(sessionId).digest().readBigUInt64BE(0);
}

/** The node a session belongs on among `nodeIds` (null when there is none). */
export function rendezvousNode(sessionId: string, nodeIds: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1n;
  for (const id of nodeIds) {
    const w = weight(id, sessionId);
    // Ties (never in practice) go to the smaller id, so every node picks the same one.
    if (w > bestWeight || (w === bestWeight && best !== null && id < best)) {
      best = id;
      bestWeight = w;
    }
  }
  return best;
}

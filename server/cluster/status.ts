// GET /api/cluster's answer: every node known with its heartbeat age and the sessions whose lease it
// holds (all by Postgres's clock); a process running alone answers with itself.
import type { ClusterStatus } from "../../lib/api/cluster";
import type { SessionLeases } from "./leases";
import type { ClusterNodes } from "./nodes";

export async function clusterStatus(parts: {
  selfId: string;
  ttlMs: number;
  leases: SessionLeases;
  nodes: ClusterNodes;
  /** The live nodes the ownership places sessions on (SessionOwnership.live). */
  placesOn: readonly string[];
}): Promise<ClusterStatus> {
  const [rows, leases] = await Promise.all([parts.nodes.list(), parts.leases.readAll()]);
  const held = new Map<string, { sessions: number; oldestMs: number }>();
  let unowned = 0;
  for (const lease of leases) {
    if (lease.lapsed) unowned++;
    if (!lease.live) continue;
    const entry = held.get(lease.nodeId) ?? { sessions: 0, oldestMs: 0 };
    entry.sessions++;
    entry.oldestMs = Math.max(entry.oldestMs, lease.ageMs);
    held.set(lease.nodeId, entry);
  }
  return {
    mode: "cluster",
    leaseTtlMs: parts.ttlMs,
    nodes: rows.map((n) => ({
      id: n.id,
      url: n.url,
      sessions: held.get(n.id)?.sessions ?? 0,
      leaseAgeMs: held.has(n.id) ? Math.round(held.get(n.id)!.oldestMs) : null,
      state: n.live ? "live" : "gone",
      lastSeenMs: Math.round(n.lastSeenMs),
      startedAt: Math.round(n.startedAt),
      self: n.id === parts.selfId,
    })),
    unowned,
    placesOn: [...parts.placesOn],
  };
}

/** A single process: itself, running every session (no leases). */
export function singleStatus(self: { id: string; url: string; sessions: number; startedAt: number }): ClusterStatus {
  return {
    mode: "single",
    leaseTtlMs: null,
    nodes: [{ ...self, leaseAgeMs: null, state: "live", lastSeenMs: 0, self: true }],
    unowned: 0,
    placesOn: [self.id],
  };
}

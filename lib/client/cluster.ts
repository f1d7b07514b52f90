// What the cluster page derives from GET /api/cluster (lib/api/cluster.ts): totals, and how fresh a
// node's leases are against the lease time (renewed every third of it: a renewal older than two thirds
// is late, one older than the lease time has expired and the node's sessions are moving).
import type { ClusterNode, ClusterStatus } from "../api/cluster";

export type LeaseHealth = "none" | "fresh" | "late" | "expired";

export function leaseHealth(node: Pick<ClusterNode, "leaseAgeMs">, leaseTtlMs: number | null): LeaseHealth {
  if (node.leaseAgeMs === null || leaseTtlMs === null) return "none";
  if (node.leaseAgeMs >= leaseTtlMs) return "expired";
  return node.leaseAgeMs > (leaseTtlMs * 2) / 3 ? "late" : "fresh";
}

interface ClusterTotals {
  live: number;
  gone: number;
  /** Sessions held by some node. */
  owned: number;
}

export function clusterTotals(status: ClusterStatus): ClusterTotals {
  let live = 0;
  let owned = 0;
  for (const node of status.nodes) {
    if (node.state === "live") live++;
    owned += node.sessions;
  }
  return { live, gone: status.nodes.length - live, owned };
}

/** This node first, then live before gone, then by id: the order the table shows. */
export function sortedNodes(nodes: readonly ClusterNode[]): ClusterNode[] {
  const rank = (n: ClusterNode) => (n.self ? 0 : n.state === "live" ? 1 : 2);
  return [...nodes].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}

// GET /api/cluster: the nodes of a cluster (DATABASE_URL=postgresql://… and REDIS_URL=redis://…), the
// sessions each owns and how fresh their leases are; a single process answers with itself alone.
import { z } from "zod";

export const clusterNodeSchema = z.object({
  id: z.string(),
  /** Where the node's HTTP server is reached by the other nodes (MAISAKA_NODE_URL). */
  url: z.string(),
  /** Sessions whose lease this node holds. */
  sessions: z.number().int(),
  /** Age of the node's oldest lease renewal (ms); null when it holds none. */
  leaseAgeMs: z.number().nullable(),
  /** live: heartbeat within the lease time; gone: missed it (its sessions move to the others). */
  state: z.enum(["live", "gone"]),
  /** Milliseconds since its last heartbeat. */
  lastSeenMs: z.number(),
  startedAt: z.number(),
  /** The node that answered this request. */
  self: z.boolean(),
});
export type ClusterNode = z.infer<typeof clusterNodeSchema>;

export const clusterSchema = z.object({
  mode: z.enum(["single", "cluster"]),
  /** The lease time: a node silent this long loses its sessions. */
  leaseTtlMs: z.number().nullable(),
  nodes: z.array(clusterNodeSchema),
  /** Sessions with an expired or missing lease, waiting for a node to take them. */
  unowned: z.number().int(),
  /**
   * The nodes the answering node places sessions on: the live ones as of its last renewal tick. A node
   * that just joined is given sessions by this one once it appears here.
   */
  placesOn: z.array(z.string()),
});
export type ClusterStatus = z.infer<typeof clusterSchema>;

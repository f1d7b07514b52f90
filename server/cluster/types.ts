// What the parts of a cluster ask of each other. A node joins a cluster when DATABASE_URL is a
// postgresql:// URL and REDIS_URL is set: Postgres holds every row (ledger, stores, leases), Redis carries
// the messages between nodes (calls, notices, the live event feed). The ports the other rooms use
// (NodeMessenger, LedgerFence, SessionDirectory) are in server/kernel/cluster.ts.
export interface ClusterIdentity {
  /** MAISAKA_NODE_ID, default `<hostname>:<port>`. */
  nodeId: string;
  /** MAISAKA_NODE_URL, default `http://<HOST>:<PORT>`. */
  url: string;
}

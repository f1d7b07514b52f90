// Once-per-cluster gates: work that must run on one node at a time (the retention sweep, the budget
// check). The cluster implements the port with Postgres advisory locks (server/cluster/advisory-lock.ts);
// a single process runs the work at once (`runAlone`).

/** Runs work exclusively across the cluster; a single process needs no gate (`runAlone`). */
export interface OnceGate {
  /** Runs `work` while no other node runs work of this name; waits for the one running. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` unless another node runs work of this name now: then resolves `{ ran: false }` at once. */
  tryExclusive<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
}

/** A single process: the work runs at once, nothing else could run it. */
export const runAlone: OnceGate = {
  exclusive: (_name, work) => work(),
  tryExclusive: async (_name, work) => ({ ran: true, value: await work() }),
};

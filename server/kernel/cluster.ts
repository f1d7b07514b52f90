// What the rooms ask of a cluster: messages between nodes, the ledger's fencing check, and which node
// runs which session. Kernel ports: server/cluster implements them (messenger.ts, fence.ts,
// ownership.ts) and the composition hands them in; a single process has no messenger or fence, and
// owns every session.
import type { PoolClient } from "pg";

/** Messaging between nodes over Redis (server/cluster/messenger.ts). */
export interface NodeMessenger {
  readonly nodeId: string;
  /**
   * Calls `method` on another node (or this one) and resolves with its handler's JSON result; rejects
   * with NodeCallError when the handler threw, or NodeUnreachableError after `timeoutMs` (default 5,000)
   * or once `signal` aborts (the caller gave up on it: a reply after that is dropped).
   */
  call<T = unknown>(
    nodeId: string,
    method: string,
    payload: unknown,
    opts?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<T>;
  /** Serves `method` for the other nodes; one handler per method. */
  handle(method: string, handler: (payload: unknown, fromNodeId: string) => Promise<unknown>): void;
  /** A cluster-wide notice, delivered to every node subscribed to `topic`, this one included. */
  publish(topic: string, payload: unknown): Promise<void>;
  subscribe(topic: string, listener: (payload: unknown, fromNodeId: string) => void): () => void;
  close(): Promise<void>;
}

/** The fencing check the Postgres ledger runs inside its append transaction (server/cluster/fence.ts). */
export interface LedgerFence {
  /**
   * Of `sessionIds`, those this node may not write: it does not hold their lease with the token it was
   * granted, or the lease expired (Postgres's own clock). Runs on the append's transaction client, which
   * it may lock lease rows on (FOR SHARE), so a lease cannot change hands while the append commits.
   */
  refused(client: PoolClient, sessionIds: readonly string[]): Promise<Set<string>>;
}

/** Which node runs which session (server/cluster/ownership.ts). */
export interface SessionDirectory {
  /**
   * The node that runs the session now. When its lease is free or expired: the node that should take it
   * (rendezvous hash over the live nodes); when that is this node, the call acquires the lease first.
   */
  ownerOf(sessionId: string): Promise<string>;
  /** This node holds the session's lease now (and so may run its runtime and write its ledger). */
  ownsLocally(sessionId: string): boolean;
  /**
   * Resolves true once `owner` no longer runs the session: its lease lapsed (its node died, or stalled
   * past the lease) or another node holds it; false once `signal` aborts first. Looked at every renewal
   * tick, so a call waiting on a dead owner is given up within the lease time and a tick.
   */
  ownerLost(sessionId: string, owner: string, signal: AbortSignal): Promise<boolean>;
}

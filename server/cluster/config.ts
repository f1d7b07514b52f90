// Whether this process is a cluster node, and as whom: DATABASE_URL=postgresql://… plus REDIS_URL makes
// it one (MAISAKA_NODE_ID, MAISAKA_NODE_URL, MAISAKA_LEASE_TTL_MS tune it); without REDIS_URL it runs
// alone. REDIS_URL with a SQLite database is refused: a file cannot be shared between machines.
import os from "node:os";
import { isPostgresUrl } from "../db/database-url";
import type { ClusterIdentity } from "./types";

export const DEFAULT_LEASE_TTL_MS = 6_000;
/** Shorter leases would expire between two renewals on a busy machine. */
const MIN_LEASE_TTL_MS = 300;

export interface ClusterConfig {
  identity: ClusterIdentity;
  redisUrl: string;
  /** A session's lease lasts this long without renewal (MAISAKA_LEASE_TTL_MS). */
  leaseTtlMs: number;
  /** Leases are renewed and the heartbeat written this often: a third of the lease time. */
  renewEveryMs: number;
}

export class ClusterConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClusterConfigError";
  }
}

/** The cluster settings of this process, or null when it runs alone (no REDIS_URL). */
export function clusterConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  where: { databaseUrl: string; host: string; port: number },
): ClusterConfig | null {
  const redisUrl = env.REDIS_URL?.trim();
  if (!redisUrl) return null;
  if (!isPostgresUrl(where.databaseUrl)) {
    throw new ClusterConfigError(
      "REDIS_URL is set but DATABASE_URL is not a postgresql:// URL: cluster nodes share one Postgres database " +
        "(unset REDIS_URL to run a single process on SQLite)",
    );
  }
  if (!/^rediss?:\/\//i.test(redisUrl)) {
    throw new ClusterConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${redisUrl}"`);
  }
  const ttlText = env.MAISAKA_LEASE_TTL_MS?.trim();
  const leaseTtlMs = ttlText ? Number(ttlText) : DEFAULT_LEASE_TTL_MS;
  if (!Number.isInteger(leaseTtlMs) || leaseTtlMs < MIN_LEASE_TTL_MS) {
    throw new ClusterConfigError(
      `MAISAKA_LEASE_TTL_MS must be a whole number of milliseconds ≥ ${MIN_LEASE_TTL_MS}, got "${ttlText}"`,
    );
  }
  if (where.port === 0 && !(env.MAISAKA_NODE_ID?.trim() && env.MAISAKA_NODE_URL?.trim())) {
    throw new ClusterConfigError("a cluster node on a random port (PORT=0) needs MAISAKA_NODE_ID and MAISAKA_NODE_URL");
  }
  const host = where.host.includes(":") ? `[${where.host}]` : where.host;
  const nodeId = env.MAISAKA_NODE_ID?.trim() || `${os.hostname()}:${where.port}`;
  const url = (env.MAISAKA_NODE_URL?.trim() || `http://${host}:${where.port}`).replace(/\/+$/, "");
  try {
    new URL(url);
  } catch {
    throw new ClusterConfigError(`MAISAKA_NODE_URL must be an http(s) URL, got "${url}"`);
  }
  return { identity: { nodeId, url }, redisUrl, leaseTtlMs, renewEveryMs: Math.floor(leaseTtlMs / 3) };
}

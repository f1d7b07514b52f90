// A cluster node's live parts on Redis, put together for the composition root: the Socket.IO Redis
// Streams adapter on the one Socket.IO server (so its own broadcasts, room operations and fetchSockets
// reach every node), the event feed the realtime hub follows, and the proxy routing session-scoped
// requests to their owner.
import { createAdapter } from "@socket.io/redis-streams-adapter";
import { Redis } from "ioredis";
import type { Server } from "socket.io";
import type { EventLedger } from "../monitor/ledger";
import type { EventSource } from "../realtime/hub";
import { EventFeed } from "./event-feed";
import { SessionProxy, type SessionProxyOptions } from "./session-proxy";
import type { ClusterIdentity } from "./types";
import type { SessionDirectory } from "../kernel/cluster";

/** Key prefix of everything a cluster keeps in Redis. */
export const CLUSTER_PREFIX = "maisaka:";

type Logger = { warn(message: string): void };

/**
 * Installs the Redis Streams adapter on `io` (before its namespaces are used). Returns what closes its
 * publishing connection; io.close() stops the adapter's own readers.
 */
export function attachClusterAdapter(
  io: Server,
  redisUrl: string,
  logger: Logger,
  prefix = CLUSTER_PREFIX,
): () => Promise<void> {
  // Commands wait out a Redis restart (the adapter keeps polling); ioredis re-connects by itself.
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(n * 50, 500) });
  let last = "";
  client.on("error", (e: Error) => {
    if (e.message !== last) logger.warn(`[cluster] socket.io adapter: redis: ${(last = e.message)}`);
  });
  client.on("ready", () => (last = ""));
  io.adapter(
    createAdapter(client, {
      streamName: `${prefix}socket.io`,
      channelPrefix: `${prefix}socket.io`,
      sessionKeyPrefix: `${prefix}sio:session:`,
    }),
  );
  return async () => {
    await client.quit().catch(() => client.disconnect());
  };
}

export interface ClusterLiveDeps {
  identity: ClusterIdentity;
  redisUrl: string;
  io: Server;
  /** The node's MonitorBus. */
  bus: EventSource;
  ledger: Pick<EventLedger, "lastSeqs" | "read">;
  logger: Logger;
  prefix?: string;
}

export interface ClusterLive {
  /** What the realtime hub follows (attachMonitor's `events`). */
  events: EventFeed;
  /** After io.close(). */
  close(): Promise<void>;
}

export async function startClusterLive(deps: ClusterLiveDeps): Promise<ClusterLive> {
  const prefix = deps.prefix ?? CLUSTER_PREFIX;
  const closeAdapter = attachClusterAdapter(deps.io, deps.redisUrl, deps.logger, prefix);
  let events: EventFeed;
  try {
    events = await EventFeed.start({
      url: deps.redisUrl,
      nodeId: deps.identity.nodeId,
      prefix,
      local: deps.bus,
      ledger: deps.ledger,
      logger: deps.logger,
    });
  } catch (error) {
    await closeAdapter();
    throw error;
  }
  return {
    events,
    async close() {
      await events.close();
      await closeAdapter();
    },
  };
}

export interface SessionRoutingDeps extends Pick<SessionProxyOptions, "admit" | "maxBodyBytes" | "logger"> {
  identity: ClusterIdentity;
  directory: SessionDirectory;
  /** The cluster's members and their URLs (ClusterNodes.list()). */
  nodes: { list(): Promise<{ id: string; url: string }[]> };
  retryForMs?: number;
}

/** The proxy for requests.ts, its node URLs read from the members table (cached for a second). */
export function createSessionRouting(deps: SessionRoutingDeps): SessionProxy {
  let cache: { at: number; urls: Map<string, string> } | undefined;
  const nodeUrl = async (nodeId: string): Promise<string | undefined> => {
    if (!cache || Date.now() - cache.at > 1_000 || !cache.urls.has(nodeId)) {
      const rows = await deps.nodes.list();
      cache = { at: Date.now(), urls: new Map(rows.map((r) => [r.id, r.url])) };
    }
    return cache.urls.get(nodeId);
  };
  return new SessionProxy({
    nodeId: deps.identity.nodeId,
    selfUrl: deps.identity.url,
    directory: deps.directory,
    nodeUrl,
    admit: deps.admit,
    maxBodyBytes: deps.maxBodyBytes,
    retryForMs: deps.retryForMs,
    logger: deps.logger,
  });
}

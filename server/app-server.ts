// The composition root of the server: one HTTP server serving /api (our router), Socket.IO /monitor
// and the Next.js dashboard, with the engine running in-process on the Prisma stores and ledger.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { MAX_BODY_BYTES } from "../lib/api/schemas";
import type { MaisakaConfig } from "../lib/config/schema";
import type { AnalyticsIndexer } from "./analytics/indexer";
import { AuditLog } from "./accounts/audit";
import type { AdminToken } from "./auth/admin-token";
import type { LoginLimitOptions } from "./auth/login-limiter";
import { peerOf } from "./auth/proxy-trust";
import type { LoginSessionOptions } from "./auth/login-sessions";
import { clusterConfigFromEnv } from "./cluster/config";
import { createSessionRouting, startClusterLive } from "./cluster/live";
import { RedisMessenger } from "./cluster/messenger";
import { ClusterMember } from "./cluster/node";
import type { NodeMessenger } from "./kernel/cluster";
import { attachSharedState, type ClusterStateParts } from "./cluster/shared-state";
import { openClusterState, type OpenClusterState } from "./cluster/state-parts";
import { singleStatus } from "./cluster/status";
import { routeSharedStreams } from "./cluster/stream-routing";
import { createEngine, taskRoutes, type Engine } from "./composition";
import { dataDirFromEnv } from "./data-dir";
import { openDatabase, type MaisakaDatabase } from "./db";
import { journalFromEnv } from "./db/ledger";
import { promptNames, type OutboundSink } from "./engine";
import { stderrLogger, type Logger } from "./kernel/logger";
import type { Clock } from "./kernel/clock";
import { apiErrorOf } from "./http/api-errors";
import { HttpError, tooManyWrongTokens } from "./http/errors";
import { createApiServices, type EngineParts } from "./http/api-services";
import { prepareDashboard, requestListener, type DashboardOptions } from "./http/requests";
import { ApiRouter } from "./http/router";
import { apiRoutes } from "./http/routes";
import { prepareEmojiFolder } from "./http/services/emoji-files";
import type { IconProxyOptions } from "./http/services/icon-proxy";
import type { ProviderStatusRegistry } from "./http/services/provider-status";
import type { RetentionSweep } from "./http/services/retention";
import { SessionLifecycle } from "./http/services/session-lifecycle";
import { toolRunAudit } from "./http/services/tool-invoke";
import type { ModelClient } from "./llm/model-client";
import { McpGateway } from "./mcp/gateway";
import { engineToolSource } from "./mcp/gateway-source";
import { loadSavedMcpServers, McpServerSettings } from "./mcp/server-settings";
import { createAdapters, installedPlatforms, type PlatformOptions } from "./platforms/installed";
import { OutboundRouter } from "./platforms/outbound-router";
import { AdapterRegistry } from "./platforms/registry";
import type { AdapterClusterPorts } from "./platforms/seam";
import { attachMonitor, defaultStreamLimits, type Monitor, type MonitorLimits } from "./realtime/monitor";
import { createSocketServer } from "./realtime/socket-server";
import { LiveSettingsService } from "./settings/live-settings";
import { openSearchService, type SearchService } from "./search/service";

export type { DashboardOptions } from "./http/requests";

/** Shutdown closes whatever is still open after this long. */
const SHUTDOWN_GRACE_MS = 10_000;

/** PlatformOptions: each installed platform's own options, under its name (server/platforms/installed.ts). */
export interface AppServerOptions extends PlatformOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  databaseUrl: string;
  config: MaisakaConfig;
  /** The operator token (see auth/admin-token.ts). */
  token: string;
  /** Where it came from, named on the login page (absent: no place named). */
  tokenSource?: AdminToken["source"];
  /** Serve the Next.js dashboard too; false serves only /api and Socket.IO (MAISAKA_NO_UI). */
  dashboard: DashboardOptions | false;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  model?: ModelClient;
  streamLimits?: Partial<MonitorLimits>;
  /** Login lifetime and throttling (tests shorten them and inject a clock). */
  auth?: { sessions?: Partial<LoginSessionOptions>; limits?: Partial<LoginLimitOptions> };
  /** Tool icon proxy limits (tests allow loopback sources). */
  icons?: Partial<IconProxyOptions>;
  /** Where the bot's messages go (createEngine's `outbound`; absent: they stay local). */
  outbound?: OutboundSink;
  /** The engine's clock (tests of the retention sweep pass a fake one; absent: the system clock). */
  clock?: Clock;
  /** Start the plugin Runner (npm start does; API tests leave it off so the example plugins stay out of their requests). */
  plugins?: boolean;
  /**
   * A cluster node's messenger (server/cluster/messenger.ts); absent on a cluster node: one is connected
   * at start. One per node: two with the same node id would each answer the other's calls.
   */
  messenger?: NodeMessenger;
  /**
   * The data folder (default MAISAKA_DATA_DIR, else ./data): the emoji library's files are in its
   * emoji/ folder (records name them "emoji/…"), made ready at start (prepareEmojiFolder).
   */
  dataDir?: string;
  /** The live OTLP push's batching delay (tests shorten it). */
  telemetry?: { scheduledDelayMs?: number };
  /**
   * A cluster node's parts for the state shared by the nodes: operator changes made here are told to
   * the others and theirs reloaded here (server/cluster/shared-state.ts); once-per-cluster work under
   * advisory locks. Absent: a single process.
   */
  sharedState?: ClusterStateParts;
}

export interface AppServer {
  url: string;
  host: string;
  port: number;
  engine: Engine;
  database: MaisakaDatabase;
  /** Plugin runner and MCP servers register their status here. */
  providerStatus: ProviderStatusRegistry;
  monitor: Monitor;
  /** Behaviour analytics' derived tables, caught up in the background from start (idle() waits for it). */
  analytics: AnalyticsIndexer;
  /** The chat platform adapters the config asks for (none: an empty registry). */
  adapters: AdapterRegistry;
  /** Sessions brought back at start (pending messages or an armed wait). */
  restored: number;
  /** The retention setting's periodic sweep (sweep() runs one pass now). */
  retention: RetentionSweep;
  /** Full-text search over the ledger (/api/search answers 503 while its index is not open). */
  search: SearchService;
  /** Graceful stop: intake first, then runtimes (snapshots saved), ledger flush, providers, database. */
  close(reason?: string): Promise<void>;
}

export async function startAppServer(opts: AppServerOptions): Promise<AppServer> {
  // DATABASE_URL=postgresql://… and REDIS_URL: a cluster node (REDIS_URL on SQLite is refused here).
  const clusterConfig = clusterConfigFromEnv(opts.env ?? process.env, {
    databaseUrl: opts.databaseUrl,
    host: opts.host ?? "127.0.0.1",
    port: opts.port ?? 3000,
  });
  const member = clusterConfig ? await ClusterMember.open(clusterConfig, opts.databaseUrl) : null;
  let ownMessenger: RedisMessenger | null = null;
  try {
    if (member && !opts.messenger)
      ownMessenger = await RedisMessenger.connect({
        url: member.config.redisUrl,
        nodeId: member.nodeId,
        logger: opts.logger ?? stderrLogger,
      });
    const messenger = opts.messenger ?? ownMessenger;
    // A cluster node's ledger appends only the sessions whose lease it holds (server/cluster/fence.ts).
    const database = await openDatabase(opts.databaseUrl, {
      logger: opts.logger ?? stderrLogger,
      fence: member?.fence,
      ledger: { journal: journalFromEnv(opts.env ?? process.env) },
    });
    try {
      const dataDir = path.resolve(opts.dataDir ?? dataDirFromEnv(opts.env ?? process.env));
      const app = await serve({ ...opts, dataDir, ...(messenger ? { messenger } : {}) }, database, member);
      return ownMessenger ? withClose(app, () => ownMessenger!.close()) : app;
    } catch (error) {
      await database.close();
      throw error;
    }
  } catch (error) {
    await ownMessenger?.close();
    await member?.close();
    throw error;
  }
}

/** The app closing `after` once it is closed itself. */
function withClose(app: AppServer, after: () => Promise<void>): AppServer {
  let closing: Promise<void> | null = null;
  const close = (reason?: string) => (closing ??= app.close(reason).finally(after));
  return { ...app, close };
}

/** The adapters' ports of a cluster node: its directory exists once the member joined (no event comes before). */
function adapterClusterPorts(member: ClusterMember, messenger: NodeMessenger): AdapterClusterPorts {
  const directory = () => {
    const joined = member.directory;
    if (!joined) throw new Error("this node has not joined the cluster yet");
    return joined;
  };
  return {
    nodeId: member.nodeId,
    messenger,
    redisUrl: member.config.redisUrl,
    ttlMs: member.config.leaseTtlMs,
    directory: {
      ownerOf: (id) => directory().ownerOf(id),
      ownsLocally: (id) => directory().ownsLocally(id),
      ownerLost: (id, owner, signal) => directory().ownerLost(id, owner, signal),
    },
  };
}

/** The options once the data folder is known. */
type ServeOptions = AppServerOptions & { dataDir: string };

async function serve(opts: ServeOptions, database: MaisakaDatabase, member: ClusterMember | null): Promise<AppServer> {
  const logger = opts.logger ?? stderrLogger;
  // Before anything sends or serves an emoji: the library's files are in the data folder.
  const emojis = await database.stores.emojis.listAll();
  await prepareEmojiFolder(
    opts.dataDir,
    emojis.map((emoji) => emoji.file),
    logger,
  );
  // Before the engine: its outbound deliveries go through the platform adapters.
  const adapters = new AdapterRegistry(installedPlatforms);
  for (const adapter of createAdapters({ config: opts.config, logger, dataDir: opts.dataDir }, opts))
    adapters.register(adapter);
  // The operator's saved MCP server list replaces the config file's (server/mcp/server-settings.ts).
  const savedMcpServers = await loadSavedMcpServers(database.stores.settings, logger);
  // Created before the engine, whose turns name its version; loaded once the model client exists.
  let settings: LiveSettingsService | null = null;
  const engine = await createEngine({
    settingsVersion: () => settings?.currentVersion ?? 0,
    config: opts.config,
    ...(savedMcpServers ? { mcpServers: savedMcpServers.map((server) => server.config) } : {}),
    // A cluster node saves a session's snapshot only while it holds the session's lease.
    stores: member ? member.guardStores(database.stores) : database.stores,
    ledger: database.ledger,
    env: opts.env,
    logger,
    model: opts.model,
    clock: opts.clock,
    // A platform's chats' messages go out through its adapter; other sessions stay local.
    outbound: opts.outbound ?? new OutboundRouter(adapters),
  });
  const audit = new AuditLog(database.stores.audit, () => engine.clock.now());
  const lifecycle = new SessionLifecycle(engine, audit);
  const mcpSettings = new McpServerSettings(
    engine.mcp,
    database.stores.settings,
    engine.clock,
    savedMcpServers,
    engine.stateChanges,
  );
  // Operators' live changes of which chats are served, laid over the config file before any event.
  const clusterPorts = member && opts.messenger ? adapterClusterPorts(member, opts.messenger) : undefined;
  for (const adapter of adapters.list())
    await adapter.attach(
      {
        manager: engine.manager,
        stores: engine.stores,
        settings: database.stores.settings,
        ledger: database.ledger,
        config: () => engine.config,
        clock: engine.clock,
        // Archiving is housekeeping (the retention sweep archives quiet chats): a chat that speaks
        // again gets its bot back. Operators who want a chat ignored deny it (platforms audience).
        reopen: async (sessionId) =>
          void (await lifecycle.unarchive(sessionId, PLATFORM_ACTOR, "a new message arrived on the platform")),
        // A live audience change is told to a cluster's other nodes, which reload it.
        changes: engine.stateChanges,
      },
      clusterPorts,
    );
  settings = new LiveSettingsService({
    config: engine.config,
    store: database.stores.settings,
    clock: engine.clock,
    logger,
    promptNames,
    reroute: (tasks) => engine.model.reroute?.(taskRoutes(tasks)),
  });
  // Before any turn runs: restored sessions start on the saved settings.
  await settings.load();
  const live = settings;
  const search = openSearch(opts.databaseUrl, engine, logger);
  let opened: OpenClusterState | null = null;
  try {
    // Before the server listens: no runtime may start for a session another node runs.
    await member?.join(engine);
    // A cluster node shares toggles, settings, accounts, … with the others (server/cluster/shared-state.ts).
    if (member && opts.messenger && !opts.sharedState) {
      opened = openClusterState(opts.databaseUrl, opts.messenger, () => member.directory);
    }
    return await serveEngine(
      opened ? { ...opts, sharedState: opened } : opts,
      database,
      { engine, adapters, mcpSettings, settings: live, search, audit, lifecycle },
      logger,
      member,
      opened,
    );
  } catch (error) {
    await opened?.close();
    await search.close();
    await adapters.closeAll("start failed");
    // A failed start (a taken port, a broken build) must not leave runtimes or the plugin runner behind.
    await engine.close("start failed");
    throw error;
  }
}

/** Who the audit names when a platform's message brings an archived session back. */
const PLATFORM_ACTOR = { id: "platform", name: "platform" };

async function serveEngine(
  opts: ServeOptions,
  database: MaisakaDatabase,
  parts: Omit<EngineParts, "cluster">,
  logger: Logger,
  member: ClusterMember | null,
  /** The cluster state's connections this server opened (closed at shutdown). */
  opened: OpenClusterState | null,
): Promise<AppServer> {
  const { engine, adapters, search } = parts;
  const host = opts.host ?? "127.0.0.1";
  let bound = { url: "", port: opts.port ?? 3000 };
  const cluster = member ?? singleNode(engine, opts.env ?? process.env, () => bound);
  const clusterState = opts.sharedState;
  const { ctx, auth, accounts, providerStatus, analytics, retention, telemetry, stateReloaders } =
    await createApiServices(
      opts,
      database,
      {
        ...parts,
        cluster,
        ...(member ? { claimSession: async (id: string) => (await member.directory?.claim(id)) ?? false } : {}),
      },
      logger,
    );
  // The streams no chat owns are written by the node holding their lease (server/cluster/stream-routing.ts).
  const directory = member?.directory;
  if (directory && opts.messenger) routeSharedStreams(engine.streams, directory, opts.messenger);
  if (clusterState) {
    engine.budget.shareWith({
      gate: clusterState.once,
      resume: (streamId) => engine.bus.resume(streamId),
      streams: engine.streams,
    });
  }
  const shared = clusterState
    ? attachSharedState({
        messenger: clusterState.messenger,
        changes: engine.stateChanges,
        reloaders: stateReloaders,
        // What another node's change told its running sessions, told to this node's.
        announce: ({ type, data }) => {
          for (const id of engine.manager.runningSessionIds()) engine.bus.emit(id, type, data);
        },
        logger,
      })
    : null;
  const router = new ApiRouter(apiRoutes, ctx, { auth, logger, bodyLimit: MAX_BODY_BYTES, mapError: apiErrorOf });
  // /api/mcp speaks MCP (Streamable HTTP), not our JSON API: the gateway owns that path.
  const mcpGateway = new McpGateway({
    // Every run is audited like one by hand (tool.invoke), outside any session.
    source: engineToolSource(engine, async (run) => {
      await parts.audit.record(toolRunAudit({ ...run, via: "mcp-gateway", sessionId: null }));
    }),
    // Throttled like the API: an address with too many wrong tokens gets 401 without a comparison.
    // Calling a tool changes things: viewers are refused here too.
    authenticate: (req) => {
      const checked = auth.check(peerOf(req));
      if (!("principal" in checked) || !checked.principal) return "unauthorized";
      return checked.principal.actor.role === "viewer" ? "forbidden" : checked.principal.actor;
    },
    logger,
    maxBodyBytes: MAX_BODY_BYTES,
  });

  // Session-scoped requests of a session another node owns are answered by that node.
  const sessionRouting =
    member && directory
      ? createSessionRouting({
          identity: member.config.identity,
          directory,
          nodes: { list: async () => (await member.status()).nodes },
          // Wrong credentials are refused (and throttled by the caller's address) here, before forwarding.
          admit: (req) => {
            const checked = auth.check(peerOf(req));
            if ("retryAfterMs" in checked) return tooManyWrongTokens(checked.retryAfterMs);
            return checked.principal ? null : new HttpError(401, "operator token required");
          },
          maxBodyBytes: MAX_BODY_BYTES,
          // Longer than a dead owner's lease takes to expire and be taken over.
          retryForMs: Math.max(20_000, 3 * member.config.leaseTtlMs),
          logger,
        })
      : null;
  const httpServer = createServer();
  const next = opts.dashboard ? await prepareDashboard(opts.dashboard, httpServer, host, opts.port ?? 3000) : null;
  let draining = false;
  httpServer.on(
    "request",
    requestListener({
      router,
      gateway: mcpGateway,
      dashboard: next,
      dev: opts.dashboard ? opts.dashboard.dev : false,
      draining: () => draining,
      logger,
      ...(sessionRouting ? { sessions: sessionRouting } : {}),
    }),
  );

  const io = createSocketServer(httpServer, logger);
  // A cluster node's hub follows every node's committed events; Socket.IO's own broadcasts cross nodes.
  const clusterLive = member
    ? await startClusterLive({
        identity: member.config.identity,
        redisUrl: member.config.redisUrl,
        io,
        bus: engine.bus,
        ledger: database.ledger,
        logger,
      })
    : null;
  // Each adapter's upgrade paths (every other upgrade stays Socket.IO's and Next's) and its events.
  for (const adapter of adapters.list()) adapter.serve({ server: httpServer, events: engine.bus });
  const monitor = await attachMonitor(
    io,
    {
      bus: engine.bus,
      ledger: database.ledger,
      auth,
      logger,
      sessionExists: async (id) => (await engine.stores.sessions.get(id)) !== null,
      ...(clusterLive ? { events: clusterLive.events } : {}),
    },
    {
      ...defaultStreamLimits,
      ...opts.streamLimits,
    },
  );
  // Token-authenticated sockets have no login to revoke: they close with their account.
  accounts.onDisable((accountId) => monitor.disconnectAccount(accountId));
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(opts.port ?? 3000, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port; // a TCP server's address is an AddressInfo
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  bound = { url, port };
  // After listen: a taken port fails the start before any restored session runs a turn.
  const restored = await engine.manager.restoreAll();
  // After the restore: inbound platform messages meet the sessions as they were.
  for (const adapter of adapters.list()) adapter.start();
  retention.start();

  let closing: Promise<void> | null = null;
  const close = (reason = "shutdown"): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      // A Runner lost while the runtimes stop stays down: nothing may come back mid-shutdown.
      engine.plugins.beginShutdown();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      const force = setTimeout(() => httpServer.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        // First: no platform event may arrive once the runtimes stop; those received are handed over.
        // Sends still waiting for a rate slot fail now instead of holding the runtimes' stop.
        await adapters.closeAll(reason);
        await mcpGateway.close();
        shared?.close();
        await retention.stop();
        // Stops the runtimes (in-flight planners aborted, snapshots saved), the plugin runner and the MCP
        // servers, then waits until every event is in the ledger.
        await engine.close(reason);
        // After the engine: the leases go only once the sessions' last state is saved.
        await member?.close();
        await analytics.close();
        await opened?.close();
        // After the engine: the last cycles' traces go out (within the exporter's timeout).
        await telemetry.close();
        monitor.close();
        await io.close();
        await clusterLive?.close();
        sessionRouting?.close();
        httpServer.closeAllConnections();
        await closed;
        await next?.app.close();
        await search.close();
      } finally {
        clearTimeout(force);
        await database.close();
      }
    })();
    return closing;
  };

  return {
    url,
    host,
    port,
    engine,
    database,
    providerStatus,
    monitor,
    analytics,
    adapters,
    restored,
    retention,
    search,
    close,
  };
}

/** GET /api/cluster of a process running alone: itself, with the runtimes it runs. */
function singleNode(
  engine: Engine,
  env: NodeJS.ProcessEnv,
  address: () => { url: string; port: number },
): EngineParts["cluster"] {
  const startedAt = Date.now();
  return {
    status: async () =>
      singleStatus({
        id: env.MAISAKA_NODE_ID?.trim() || `${os.hostname()}:${address().port}`,
        url: env.MAISAKA_NODE_URL?.trim() || address().url,
        sessions: engine.manager.runningSessionIds().length,
        startedAt,
      }),
  };
}

/**
 * The search index is derived data: the server does not wait for it to open, and when it cannot open
 * the server runs without search (GET /api/search answers 503) rather than not at all, until it opens
 * (the SQLite indexer tries again, Postgres's waits for the database).
 */
function openSearch(databaseUrl: string, engine: Engine, logger: Logger): SearchService {
  const search = openSearchService({ databaseUrl, bus: engine.bus, logger });
  search.ready.catch((error: unknown) =>
    logger.warn(`[search] unavailable: ${error instanceof Error ? error.message : String(error)}`),
  );
  return search;
}

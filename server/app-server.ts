// The composition root of the server: one HTTP server serving /api (our router), Socket.IO /monitor
// and the Next.js dashboard, with the engine running in-process on the Prisma stores and ledger.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server as SocketServer } from "socket.io";
import { MAX_BODY_BYTES } from "../lib/api/schemas";
import type { MaisakaConfig } from "../lib/config/schema";
import { AccountService } from "./accounts/accounts";
import { AnalyticsIndexer } from "./analytics/indexer";
import { AnalyticsStore } from "./db/stores/analytics";
import { AuditLog } from "./accounts/audit";
import { clientAddress, LoginLimiter, type LoginLimitOptions } from "./auth/login-limiter";
import { LoginSessions, type LoginSessionOptions } from "./auth/login-sessions";
import { OperatorAuth } from "./auth/operator-auth";
import { createEngine, taskRoutes, type Engine } from "./composition";
import { openDatabase, stateOfError, type MaisakaDatabase } from "./db";
import {
  promptNames,
  SessionArchivedError,
  stderrLogger,
  type Clock,
  type EngineLogger,
  type OutboundSink,
} from "./engine";
import { LiveSettingsService } from "./settings/live-settings";
import type { ApiContext } from "./http/context";
import { HttpError } from "./http/errors";
import { isCrossOrigin } from "./http/origin";
import { addTransportHeaders, preparePageRequest, setApiHeaders } from "./http/security-headers";
import { TokenBuckets } from "./http/rate-limit";
import { ApiRouter, writeJson } from "./http/router";
import { apiRoutes } from "./http/routes";
import { IconProxy, type IconProxyOptions } from "./http/services/icon-proxy";
import { DB_RETRY_AFTER_S } from "./http/routes/session-messages";
import { ProviderStatusRegistry } from "./http/services/provider-status";
import { SessionDirectory } from "./http/services/session-directory";
import { SessionLifecycle } from "./http/services/session-lifecycle";
import { RetentionSweep } from "./http/services/retention";
import { ToolCatalog } from "./http/services/tool-catalog";
import { ToggleProvenance } from "./http/services/toggle-provenance";
import { ToolToggleService } from "./http/services/tool-toggles";
import { ToolInvokeService } from "./http/services/tool-invoke";
import { BotDataService } from "./http/services/bot-data";
import { EmojiFiles } from "./http/services/emoji-files";
import { startTelemetry } from "./telemetry/service";
import type { ModelClient } from "./llm/model-client";
import { isGatewayPath, McpGateway } from "./mcp/gateway";
import { engineToolSource } from "./mcp/gateway-source";
import { mcpProviderStatuses } from "./mcp/status";
import {
  onebotConfigured,
  OneBotService,
  type OneBotEventHandler,
  type OneBotTuning,
} from "./platforms/onebot/service";
import { createOneBotInbound, type OneBotInbound } from "./platforms/onebot/inbound";
import { OneBotOutbound } from "./platforms/onebot/outbound";
import { OneBotAudienceSettings } from "./platforms/onebot/audience-settings";
import { loadSavedMcpServers, McpServerSettings } from "./mcp/server-settings";
import { McpServerService } from "./http/services/mcp-servers";
import type { OneBotAudiencePatch } from "../lib/platforms/status";
import { OutboundRouter } from "./platforms/outbound-router";
import { publicDir } from "./db/seed";
import { StoreWriter } from "./db/writer";
import { sqlitePathFromUrl } from "./db/database-url";
import { SearchService } from "./search/service";
import { PLUGIN_PROVIDER_NAME } from "./plugins/runtime";
import { attachMonitor, defaultStreamLimits, type Monitor, type MonitorLimits } from "./realtime/monitor";
import { logProtocolRefusals } from "./realtime/protocol-refusals";
import { BUILTIN_PROVIDER_NAME } from "./tools/builtin/provider";

/**
 * Inbound chat messages per session: a burst of 20, then 5 per second. Far above any human typing
 * into the dashboard, far below what would swamp a session's turn queue.
 */
const INBOUND_BURST = 20;
const INBOUND_PER_SECOND = 5;

/** Chat images as QQ serves them (photos, stickers, GIFs) stay well under this. */
const CHAT_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const CHAT_IMAGE_CACHE_BYTES = 64 * 1024 * 1024;
const CHAT_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/gif",
  "image/jpeg",
  "image/webp",
  "image/avif",
]);

/** Shutdown closes whatever is still open after this long. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface DashboardOptions {
  dev: boolean;
  /** The Next.js project folder (default: the working directory). */
  dir?: string;
}

export interface AppServerOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  databaseUrl: string;
  config: MaisakaConfig;
  /** The operator token (see auth/admin-token.ts). */
  token: string;
  /** Serve the Next.js dashboard too; false serves only /api and Socket.IO (MAISAKA_NO_UI). */
  dashboard: DashboardOptions | false;
  env?: NodeJS.ProcessEnv;
  logger?: EngineLogger;
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
   * OneBot v11 (used when platforms.onebot has reverse enabled or forward URLs): the inbound handler
   * (default: events are counted and dropped; AppServer.platforms.setEventHandler sets it later too)
   * and transport tuning (tests shorten the reconnect backoff).
   */
  onebot?: { onEvent?: OneBotEventHandler; tuning?: Partial<OneBotTuning> };
  /** The folder emoji files are under (records name them "emoji/…"; default public/, tests a temp one). */
  emojiRoot?: string;
  /** The live OTLP push's batching delay (tests shorten it). */
  telemetry?: { scheduledDelayMs?: number };
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
  /** The OneBot v11 connections; null when the config asks for none. */
  platforms: OneBotService | null;
  /** Sessions brought back at start (pending messages or an armed wait). */
  restored: number;
  /** The retention setting's periodic sweep (sweep() runs one pass now). */
  retention: RetentionSweep;
  /** Full-text search over the ledger (/api/search answers 503 while its index is not open). */
  search: SearchService;
  /** Graceful stop: intake first, then runtimes (snapshots saved), ledger flush, providers, database. */
  close(reason?: string): Promise<void>;
}

/** The OneBot adapter's parts: connections, outbound sink, inbound mapping (null when an option replaced it). */
interface OneBotParts {
  service: OneBotService;
  outbound: OneBotOutbound;
  inbound: OneBotInbound | null;
  audience: OneBotAudienceSettings;
}

type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export async function startAppServer(opts: AppServerOptions): Promise<AppServer> {
  const database = await openDatabase(opts.databaseUrl, { logger: opts.logger ?? stderrLogger });
  try {
    return await serve(opts, database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function serve(opts: AppServerOptions, database: MaisakaDatabase): Promise<AppServer> {
  const logger = opts.logger ?? stderrLogger;
  // Before the engine: its outbound deliveries go through the platform connections.
  const platforms = onebotConfigured(opts.config.platforms.onebot)
    ? new OneBotService({
        config: () => opts.config.platforms.onebot,
        logger,
        onEvent: opts.onebot?.onEvent,
        tuning: opts.onebot?.tuning,
      })
    : null;
  // OneBot chats' messages go out through the connections of their bot account; other sessions stay local.
  const onebotOutbound = platforms
    ? new OneBotOutbound({
        apiOf: (selfId) => platforms.api(selfId),
        config: () => opts.config.platforms.onebot,
        emojiRoot: opts.emojiRoot ?? publicDir,
      })
    : null;
  // The operator's saved MCP server list replaces the config file's (server/mcp/server-settings.ts).
  const savedMcpServers = await loadSavedMcpServers(database.stores.settings, logger);
  // Created before the engine, whose turns name its version; loaded once the model client exists.
  let settings: LiveSettingsService | null = null;
  const engine = await createEngine({
    settingsVersion: () => settings?.currentVersion ?? 0,
    config: opts.config,
    ...(savedMcpServers ? { mcpServers: savedMcpServers.map((server) => server.config) } : {}),
    stores: database.stores,
    ledger: database.ledger,
    env: opts.env,
    logger,
    model: opts.model,
    clock: opts.clock,
    outbound: opts.outbound ?? new OutboundRouter({ onebot: onebotOutbound ?? undefined }),
  });
  const audit = new AuditLog(database.stores.audit, () => engine.clock.now());
  const lifecycle = new SessionLifecycle(engine, audit);
  const inbound =
    platforms && !opts.onebot?.onEvent
      ? createOneBotInbound({
          manager: engine.manager,
          stores: engine.stores,
          config: () => engine.config,
          clock: engine.clock,
          logger,
          // Archiving is housekeeping (the retention sweep archives quiet chats): a chat that speaks
          // again gets its bot back. Operators who want a chat ignored deny it (platforms audience).
          reopen: async (sessionId) =>
            void (await lifecycle.unarchive(sessionId, PLATFORM_ACTOR, "a new message arrived on the platform")),
        })
      : null;
  if (platforms && inbound) platforms.setEventHandler((event, api) => inbound.onEvent(event, api));
  // Operators' live changes of which chats are served, laid over the config file before any event.
  const audience = new OneBotAudienceSettings(
    opts.config.platforms.onebot,
    database.stores.settings,
    engine.clock,
    logger,
  );
  const mcpSettings = new McpServerSettings(engine.mcp, database.stores.settings, engine.clock, savedMcpServers);
  const onebot =
    platforms && onebotOutbound ? { service: platforms, outbound: onebotOutbound, inbound, audience } : null;
  if (onebot) await audience.load();
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
  try {
    return await serveEngine(
      opts,
      database,
      { engine, onebot, mcpSettings, settings: live, search, audit, lifecycle },
      logger,
    );
  } catch (error) {
    await search.close();
    await platforms?.close("start failed");
    onebotOutbound?.close();
    // A failed start (a taken port, a broken build) must not leave runtimes or the plugin runner behind.
    await engine.close("start failed");
    throw error;
  }
}

/** Who the audit names when a platform's message brings an archived session back. */
const PLATFORM_ACTOR = { id: "platform", name: "platform" };

/** What serve() built before the HTTP server: the engine and the services made around it. */
interface EngineParts {
  engine: Engine;
  onebot: OneBotParts | null;
  mcpSettings: McpServerSettings;
  settings: LiveSettingsService;
  search: SearchService;
  audit: AuditLog;
  lifecycle: SessionLifecycle;
}

async function serveEngine(
  opts: AppServerOptions,
  database: MaisakaDatabase,
  parts: EngineParts,
  logger: EngineLogger,
): Promise<AppServer> {
  const { engine, onebot, mcpSettings, settings, search, audit, lifecycle } = parts;
  const platforms = onebot?.service ?? null;
  const onebotOutbound = onebot?.outbound ?? null;
  const host = opts.host ?? "127.0.0.1";
  const logins = new LoginSessions(database.stores.loginSessions, opts.auth?.sessions);
  await logins.load();
  const loginLimiter = new LoginLimiter(opts.auth?.limits);
  const accounts = await AccountService.load(database.stores.accounts, () => engine.clock.now());
  // A disabled or deleted account's logins end at once (and their live sockets close).
  accounts.onDisable((accountId) => void logins.revokeAccount(accountId).catch(() => undefined));
  const auth = new OperatorAuth(opts.token, logins, loginLimiter, accounts);
  const provenance = await ToggleProvenance.load(engine.stores.toggles);
  const icons = new IconProxy(opts.icons);
  const chatImages = new IconProxy({
    maxBytes: CHAT_IMAGE_MAX_BYTES,
    maxCacheBytes: CHAT_IMAGE_CACHE_BYTES,
    cacheTtlMs: 86_400_000,
    // No SVG from chats: a raster image cannot carry script whatever a platform serves.
    mimeTypes: CHAT_IMAGE_TYPES,
    allowPrivate: opts.config.platforms.onebot.imagesFromPrivateNetworks || (opts.icons?.allowPrivate ?? false),
  });
  const catalog = new ToolCatalog(engine, provenance, icons);
  const providerStatus = new ProviderStatusRegistry();
  providerStatus.register({
    name: BUILTIN_PROVIDER_NAME,
    type: "builtin",
    async status() {
      const entries = await catalog.entries(null);
      const toolCount = entries.filter((e) => e.spec.providerType === "builtin").length;
      return { name: BUILTIN_PROVIDER_NAME, type: "builtin", state: "ready", toolCount, lastError: null, detail: {} };
    },
  });
  if (opts.plugins) {
    await engine.plugins.start();
    providerStatus.register({ name: PLUGIN_PROVIDER_NAME, type: "plugin", status: () => engine.plugins.statuses() });
  }
  const mcp = engine.mcp;
  providerStatus.register({ name: "mcp", type: "mcp", status: () => mcpProviderStatuses(mcp) });
  const analyticsStore = new AnalyticsStore(database.prisma, new StoreWriter({ health: database.health }));
  const analytics = new AnalyticsIndexer({
    store: analyticsStore,
    ledger: database.ledger,
    events: engine.bus,
    onError: (error) => logger.warn(`analytics: ${error instanceof Error ? error.message : String(error)}`),
  });
  // In the background: a large instance's first catch-up must not hold up the start.
  void analytics.start().catch((error: unknown) => logger.error(`analytics: ${String(error)}`));
  const retention = new RetentionSweep(engine, lifecycle, opts.config.retention);
  const emojiFiles = new EmojiFiles(opts.emojiRoot ?? publicDir);
  const telemetry = startTelemetry(opts.config, engine.bus, () => engine.clock.now(), opts.telemetry);
  const ctx: ApiContext = {
    engine,
    analytics: analyticsStore,
    ledger: database.ledger,
    auth,
    accounts,
    audit,
    sessions: new SessionDirectory(engine),
    lifecycle,
    tools: catalog,
    icons,
    chatImages,
    toggles: new ToolToggleService(engine, catalog, provenance, audit),
    settings,
    invocations: new ToolInvokeService(engine, provenance),
    botData: new BotDataService({
      audit,
      stores: engine.stores,
      files: emojiFiles,
      now: () => engine.clock.now(),
    }),
    providers: providerStatus,
    mcpServers: new McpServerService(engine.mcp, mcpSettings, audit, opts.config.mcp.enabled),
    inbound: new TokenBuckets({ capacity: INBOUND_BURST, refillPerSecond: INBOUND_PER_SECOND }),
    logins: loginLimiter,
    pingDatabase: async () => void (await database.prisma.$queryRawUnsafe("SELECT 1")),
    database: database.health,
    bundles: {
      export: {
        ledger: database.ledger,
        async lastSeq(sessionId) {
          const seq = engine.bus.seqOf(sessionId);
          await engine.bus.whenDurable(sessionId, seq);
          return seq;
        },
        media: {
          async chatImage(url) {
            const image = await chatImages.fetchSource(url);
            return { bytes: image.body, contentType: image.mimeType };
          },
          emoji: (file) => emojiFiles.read(file),
        },
        loadSnapshot: (sessionId) => database.stores.sessions.loadSnapshot(sessionId),
        importedMedia: database.stores.sessionMedia,
        maxMediaBytes: opts.config.export.maxMediaBytes,
        now: () => engine.clock.now(),
      },
      import: {
        ledger: database.ledger,
        sessions: database.stores.sessions,
        media: database.stores.sessionMedia,
        adoptSeq: (sessionId, seq) => engine.bus.adopt(sessionId, seq),
        maxBytes: opts.config.export.maxImportBytes,
      },
    },
    telemetry,
    search,
    ...(onebot
      ? {
          platforms: {
            status: () => onebot.service.status(),
            inbound: () => onebot.inbound?.counters() ?? null,
            audience: () => onebot.audience.current(),
            changeAudience: (patch: OneBotAudiencePatch) => onebot.audience.change(patch),
          },
        }
      : {}),
  };
  const router = new ApiRouter(apiRoutes, ctx, {
    auth,
    logger,
    bodyLimit: MAX_BODY_BYTES,
    mapError: (error) => archivedSession(error) ?? databaseUnavailable(error),
  });
  // /api/mcp speaks MCP (Streamable HTTP), not our JSON API: the gateway owns that path.
  const mcpGateway = new McpGateway({
    source: engineToolSource(engine),
    // Throttled like the API: an address with too many wrong tokens gets 401 without a comparison.
    // Calling a tool changes things: viewers are refused here too.
    authenticate: (req) => {
      const checked = auth.check(req.headers, clientAddress(req.socket.remoteAddress));
      if (!("principal" in checked) || !checked.principal) return false;
      return checked.principal.actor.role === "viewer" ? "forbidden" : true;
    },
    logger,
    maxBodyBytes: MAX_BODY_BYTES,
  });

  const httpServer = createServer();
  const next = opts.dashboard ? await prepareDashboard(opts.dashboard, httpServer, host, opts.port ?? 3000) : null;
  let draining = false;
  const dev = opts.dashboard ? opts.dashboard.dev : false;
  httpServer.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (isApiPath(req.url)) {
      setApiHeaders(res);
      if (draining)
        return writeJson(res, {
          status: 503,
          body: { error: "server is shutting down" },
          headers: { connection: "close" },
        });
      if (isGatewayPath(req.url)) return void mcpGateway.handle(req, res);
      void router.handle(req, res);
      return;
    }
    preparePageRequest(req, res, dev);
    if (!next)
      return writeJson(res, {
        status: 404,
        body: { error: "the dashboard is not served in this mode (MAISAKA_NO_UI)" },
      });
    next.handle(req, res).catch((error: unknown) => {
      logger.error(`[next] ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) writeJson(res, { status: 500, body: { error: "internal error" } });
    });
  });

  const io = new SocketServer(httpServer, {
    serveClient: false,
    // Next's dev server owns other upgrade requests (hot reload): engine.io must not destroy them.
    destroyUpgrade: false,
    // Client messages are subscribe requests; 1 MB leaves room for a "*" resync's per-session cursors.
    maxHttpBufferSize: 1024 * 1024,
    // No CORS headers, and no handshake from a page of another origin (cross-site WebSocket hijacking).
    allowRequest: (req, callback) =>
      callback(isCrossOrigin(req) ? "cross-origin connection refused" : null, !isCrossOrigin(req)),
  });
  io.engine.on("headers", addTransportHeaders);
  platforms?.bindEvents(engine.bus);
  // Only the OneBot paths: every other upgrade stays Socket.IO's (and Next's).
  platforms?.attachReverse(httpServer);
  logProtocolRefusals(io, logger);
  const monitor = await attachMonitor(
    io,
    { bus: engine.bus, ledger: database.ledger, auth, logger },
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
  // After listen: a taken port fails the start before any restored session runs a turn.
  const restored = await engine.manager.restoreAll();
  // After the restore: inbound platform messages meet the sessions as they were.
  platforms?.startForward();
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
        await platforms?.close(reason);
        // Sends still waiting for a rate slot fail now instead of holding the runtimes' stop.
        onebotOutbound?.close();
        await mcpGateway.close();
        await retention.stop();
        // Stops the runtimes (in-flight planners aborted, snapshots saved), the plugin runner and the MCP
        // servers, then waits until every event is in the ledger.
        await engine.close(reason);
        await analytics.close();
        // After the engine: the last cycles' traces go out (within the exporter's timeout).
        await telemetry.close();
        monitor.close();
        await io.close();
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
    platforms,
    restored,
    retention,
    search,
    close,
  };
}

/**
 * The search index is derived data: the server does not wait for it to open, and when it cannot open
 * the server runs without search (GET /api/search answers 503) rather than not at all.
 */
function openSearch(databaseUrl: string, engine: Engine, logger: EngineLogger): SearchService {
  const search = SearchService.open({ ledgerFile: sqlitePathFromUrl(databaseUrl), bus: engine.bus });
  search.ready.catch((error: unknown) =>
    logger.warn(`[search] unavailable: ${error instanceof Error ? error.message : String(error)}`),
  );
  return search;
}

const UNAVAILABLE = {
  busy: "the database is locked by another process; try again shortly",
  full: "the database's disk is full; try again once space is freed",
  error: "the database cannot be written; try again later",
} as const;

/**
 * A write the database refused answers 503 with Retry-After and a plain message: no 500, no stack trace
 * in the log (the database health logs the state change once).
 */
/** A message, send or tool run for an archived session: 409 until it is unarchived. */
function archivedSession(error: unknown): HttpError | null {
  return error instanceof SessionArchivedError ? new HttpError(409, error.message) : null;
}

function databaseUnavailable(error: unknown): HttpError | null {
  const state = stateOfError(error);
  if (!state) return null;
  return new HttpError(503, UNAVAILABLE[state], undefined, {
    "retry-after": String(state === "busy" ? 5 : DB_RETRY_AFTER_S),
  });
}

function isApiPath(url: string | undefined): boolean {
  const path = (url ?? "/").split("?")[0];
  return path === "/api" || path.startsWith("/api/");
}

async function prepareDashboard(
  opts: DashboardOptions,
  httpServer: ReturnType<typeof createServer>,
  hostname: string,
  port: number,
): Promise<{ app: { close(): Promise<void> }; handle: NextHandler }> {
  // Loaded only when the dashboard is served: API-only servers (tests) never pay for Next.
  const { default: next } = await import("next");
  const app = next({ dev: opts.dev, dir: opts.dir ?? process.cwd(), hostname, port, httpServer });
  await app.prepare();
  const handle = app.getRequestHandler();
  return { app, handle: (req, res) => handle(req, res) };
}

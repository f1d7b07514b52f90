// The services behind /api, built on the engine and the parts made around it: logins and accounts,
// the tool catalog and provider status, analytics, retention, telemetry, and the ApiContext through
// which the handlers reach them.
import { RerunService } from "../rerun/service";
import type { LoginHint } from "../../lib/api/accounts";
import type { MaisakaConfig } from "../../lib/config/schema";
import { AccountService } from "../accounts/accounts";
import type { AuditLog } from "../accounts/audit";
import { AnalyticsIndexer } from "../analytics/indexer";
import type { AdminToken } from "../auth/admin-token";
import { LoginLimiter, type LoginLimitOptions } from "../auth/login-limiter";
import { LoginSessions, type LoginSessionOptions } from "../auth/login-sessions";
import { OperatorAuth } from "../auth/operator-auth";
import { ProxyTrust } from "../auth/proxy-trust";
import type { SessionDirectory as SessionOwnership } from "../kernel/cluster";
import type { OnceGate } from "../kernel/once-gate";
import type { StateReloaders } from "../kernel/state-changes";
import { rerunWorld, type Engine } from "../composition";
import type { MaisakaDatabase } from "../db";
import { AnalyticsStore } from "../db/stores/analytics";
import { StoreWriter } from "../db/writer";
import type { Logger } from "../kernel/logger";
import type { McpServerSettings } from "../mcp/server-settings";
import { mcpProviderStatuses } from "../mcp/status";
import type { SessionClaim } from "../monitor/session-claim";
import type { AdapterRegistry } from "../platforms/registry";
import { PLUGIN_PROVIDER_NAME } from "../plugins/runtime";
import type { SearchService } from "../search/service";
import type { LiveSettingsService } from "../settings/live-settings";
import { startTelemetry, type Telemetry } from "../telemetry/service";
import { BUILTIN_PROVIDER_NAME } from "../tools/builtin/provider";
import type { ApiContext } from "./context";
import { TokenBuckets } from "./rate-limit";
import { BotDataService } from "./services/bot-data";
import { EmojiFiles } from "./services/emoji-files";
import { IconProxy, type IconProxyOptions } from "./services/icon-proxy";
import { McpServerService } from "./services/mcp-servers";
import { ProviderStatusRegistry } from "./services/provider-status";
import { RetentionSweep } from "./services/retention";
import { SessionDirectory } from "./services/session-directory";
import { SessionImporter } from "./services/session-import";
import type { SessionLifecycle } from "./services/session-lifecycle";
import { ToggleProvenance } from "./services/toggle-provenance";
import { ToolCatalog } from "./services/tool-catalog";
import { ToolInvokeService } from "./services/tool-invoke";
import { ToolToggleService } from "./services/tool-toggles";

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

/** The server options the services read (AppServerOptions names them the same). */
export interface ApiServicesOptions {
  config: MaisakaConfig;
  token: string;
  /** Where the token came from (npm start says; absent: the login page names no place). */
  tokenSource?: AdminToken["source"];
  auth?: { sessions?: Partial<LoginSessionOptions>; limits?: Partial<LoginLimitOptions> };
  icons?: Partial<IconProxyOptions>;
  plugins?: boolean;
  /** The data folder: the emoji library's files are in its emoji/. */
  dataDir: string;
  telemetry?: { scheduledDelayMs?: number };
  /** A cluster node's parts (once-per-cluster work, who owns which session); absent: a single process. */
  sharedState?: ClusterGates;
}

/** What the services take of a cluster node (its ClusterStateParts): kernel ports, never the cluster itself. */
interface ClusterGates {
  /** The retention sweep and budget alerts once per cluster. */
  once: OnceGate;
  /** Who runs which session: analytics folds only this node's (absent: every session). */
  sessions?: Pick<SessionOwnership, "ownsLocally">;
}

/** What the server built before the HTTP services: the engine and the services made around it. */
export interface EngineParts {
  engine: Engine;
  /** The chat platform adapters (attached to the engine). */
  adapters: AdapterRegistry;
  mcpSettings: McpServerSettings;
  settings: LiveSettingsService;
  search: SearchService;
  audit: AuditLog;
  lifecycle: SessionLifecycle;
  /** GET /api/cluster's answer (server/cluster/status.ts). */
  cluster: ApiContext["cluster"];
  /** A cluster node's lease taking for a new session written directly (re-run, import): monitor/session-claim.ts. */
  claimSession?: SessionClaim;
}

/** The context, and the services the server itself starts, closes or hands out. */
export interface ApiServices {
  ctx: ApiContext;
  auth: OperatorAuth;
  accounts: AccountService;
  providerStatus: ProviderStatusRegistry;
  analytics: AnalyticsIndexer;
  retention: RetentionSweep;
  telemetry: Telemetry;
  /** How each part of the operator state is read again when another node of a cluster changed it. */
  stateReloaders: StateReloaders;
}

/** The token's place as the login page may say it: the variable's name, or the file's path. */
function loginHintOf(source: AdminToken["source"] | undefined): LoginHint["operatorToken"] {
  if (!source) return null;
  return source.kind === "env" ? { from: "env" } : { from: "file", path: source.path };
}

/** Starts the plugin runner (when asked) and the analytics catch-up; the retention sweep is left to start. */
export async function createApiServices(
  opts: ApiServicesOptions,
  database: MaisakaDatabase,
  parts: EngineParts,
  logger: Logger,
): Promise<ApiServices> {
  const { engine, adapters, mcpSettings, settings, search, audit, lifecycle, cluster } = parts;
  const logins = new LoginSessions(database.stores.loginSessions, opts.auth?.sessions, engine.stateChanges);
  await logins.load();
  // Tokens and passwords each have their own limiter: wrong passwords never hold up a token.
  const tokenLimiter = new LoginLimiter(opts.auth?.limits);
  const passwordLimiter = new LoginLimiter(opts.auth?.limits);
  const accounts = await AccountService.load(database.stores.accounts, () => engine.clock.now(), engine.stateChanges);
  // A disabled or deleted account's logins end at once (and their live sockets close).
  accounts.onDisable((accountId) => void logins.revokeAccount(accountId).catch(() => undefined));
  const proxy = new ProxyTrust(opts.config.server.trustProxy, (peer) =>
    logger.warn(
      `[auth] X-Forwarded-For from ${peer} is ignored (server.trustProxy does not list it): behind a proxy, every client counts as that address (docs/deploy.md)`,
    ),
  );
  const auth = new OperatorAuth(opts.token, logins, tokenLimiter, accounts, proxy);
  // Credentials the server keeps only as hashes are masked too where a child's stderr shows one.
  engine.secrets.addSecrets(() => [opts.token]);
  engine.secrets.addCheck((word) => auth.actorOfToken(word) !== null || logins.isLive(word));
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
    ...(opts.sharedState?.sessions ? { owner: opts.sharedState.sessions } : {}),
    // A fold whose write the database refused while its health says so (a full disk) is in the log already,
    // as that state change: a line per failed fold would repeat it. The next delivery folds it again.
    onError: (error) => {
      if (database.health.status().ok)
        logger.warn(`analytics: ${error instanceof Error ? error.message : String(error)}`);
    },
  });
  // In the background: a large instance's first catch-up must not hold up the start.
  void analytics.start().catch((error: unknown) => logger.error(`analytics: ${String(error)}`));
  // A session written to the ledger directly (an import, a re-run): the bus takes over its seq, and
  // analytics folds it now rather than at the next start (no delivery marks it).
  const adoptWritten = (sessionId: string, seq: number) => {
    engine.bus.adopt(sessionId, seq);
    analytics.adopt(sessionId);
  };
  const retention = new RetentionSweep(engine, lifecycle, opts.config.retention, opts.sharedState?.once);
  const emojiFiles = new EmojiFiles(opts.dataDir);
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
    invocations: new ToolInvokeService(engine, provenance, audit),
    botData: new BotDataService({
      audit,
      stores: engine.stores,
      files: emojiFiles,
      now: () => engine.clock.now(),
    }),
    providers: providerStatus,
    mcpServers: new McpServerService(engine.mcp, mcpSettings, audit, opts.config.mcp.enabled),
    inbound: new TokenBuckets({ capacity: INBOUND_BURST, refillPerSecond: INBOUND_PER_SECOND }),
    passwords: passwordLimiter,
    loginHint: { operatorToken: loginHintOf(opts.tokenSource) },
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
        modelCalls: database.stores.modelCalls,
        toolRecords: (sessionId) => database.stores.toolRecords.list(sessionId),
        importedMedia: database.stores.sessionMedia,
        maxMediaBytes: opts.config.export.maxMediaBytes,
        now: () => engine.clock.now(),
      },
      import: new SessionImporter({
        ledger: database.ledger,
        sessions: database.stores.sessions,
        modelCalls: database.stores.modelCalls,
        toolRecords: database.stores.toolRecords,
        media: database.stores.sessionMedia,
        adoptSeq: adoptWritten,
        maxBytes: opts.config.export.maxImportBytes,
        ...(parts.claimSession ? { claim: parts.claimSession } : {}),
      }),
    },
    telemetry,
    search,
    reruns: new RerunService({
      stores: engine.stores,
      ledger: database.ledger,
      world: (continueWith) => rerunWorld(engine, continueWith),
      adoptSeq: adoptWritten,
      now: () => engine.clock.now(),
      ...(parts.claimSession ? { claim: parts.claimSession } : {}),
    }),
    cluster,
    platforms: adapters,
  };
  // The adapters are attached by now: an adapter with live audience settings reloads them.
  const audience = adapters.audience();
  const stateReloaders: StateReloaders = {
    toggles: async () => {
      engine.toggles.replaceAll(await engine.stores.toggles.list());
      await provenance.reload(engine.stores.toggles);
    },
    settings: () => settings.reload(),
    accounts: () => accounts.reload(),
    logins: () => logins.reload(),
    mcp: () => mcpSettings.reload(logger),
    ...(audience ? { audience: () => audience.reload() } : {}),
    // Only a node that runs the plugin Runner restarts it.
    ...(opts.plugins ? { plugins: () => engine.plugins.reload() } : {}),
  };
  return { ctx, auth, accounts, providerStatus, analytics, retention, telemetry, stateReloaders };
}

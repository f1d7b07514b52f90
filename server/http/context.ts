// What API handlers reach: the engine and the services built on it by the composition root.
import type { LoginHint } from "../../lib/api/accounts";
import type { ClusterStatus } from "../../lib/api/cluster";
import type { DbStatus } from "../../lib/api/schemas";
import type { AccountService } from "../accounts/accounts";
import type { AuditLog } from "../accounts/audit";
import type { AnalyticsStore } from "../db/stores/analytics";
import type { Engine } from "../composition";
import type { LoginLimiter } from "../auth/login-limiter";
import type { OperatorAuth } from "../auth/operator-auth";
import type { EventLedger } from "../monitor/ledger";
import type { AdapterRegistry } from "../platforms/registry";
import type { LiveSettingsService } from "../settings/live-settings";
import type { SearchService } from "../search/service";
import type { RerunService } from "../rerun/service";
import type { TokenBuckets } from "./rate-limit";
import { routeBuilder } from "./route";
import type { BotDataService } from "./services/bot-data";
import type { IconProxy } from "./services/icon-proxy";
import type { McpServerService } from "./services/mcp-servers";
import type { ProviderStatusRegistry } from "./services/provider-status";
import type { SessionDirectory } from "./services/session-directory";
import type { SessionLifecycle } from "./services/session-lifecycle";
import type { SessionExportDeps } from "./services/session-export";
import type { SessionImporter } from "./services/session-import";
import type { Telemetry } from "../telemetry/service";
import type { ToolCatalog } from "./services/tool-catalog";
import type { ToolInvokeService } from "./services/tool-invoke";
import type { ToolToggleService } from "./services/tool-toggles";

export interface ApiContext {
  engine: Engine;
  ledger: EventLedger;
  /** Behaviour analytics: series and the cycles behind a bar, from the derived tables. */
  analytics: AnalyticsStore;
  auth: OperatorAuth;
  /** Named accounts (the router identifies the actor; handlers get it as `actor`). */
  accounts: AccountService;
  /** The one audit trail: `ctx.audit.record({ actor, action, target, before, after, reason })`. */
  audit: AuditLog;
  sessions: SessionDirectory;
  /** Archive, unarchive and delete (audited), shared with the retention sweep. */
  lifecycle: SessionLifecycle;
  tools: ToolCatalog;
  /** Tool icons fetched server-side for the dashboard. */
  icons: IconProxy;
  /** Chat images of stored messages, fetched server-side (the same guarded fetch as icons). */
  chatImages: IconProxy;
  toggles: ToolToggleService;
  /** Tools run by hand (POST /api/tools/:name/invoke). */
  invocations: ToolInvokeService;
  /** The settings changed live (GET/PATCH /api/settings). */
  settings: LiveSettingsService;
  /** Memories, jargon, person profiles, the emoji library and the learned feed. */
  botData: BotDataService;
  providers: ProviderStatusRegistry;
  /** The MCP servers changed live (GET/POST /api/mcp-servers, …). */
  mcpServers: McpServerService;
  /** Per-session limiter of inbound chat messages (429 when empty). */
  inbound: TokenBuckets;
  /**
   * Throttles wrong passwords at the login (per address, per account name and globally); wrong tokens
   * have their own limiter (OperatorAuth), so neither holds up the other.
   */
  passwords: LoginLimiter;
  /** Where the operator token comes from, for the login page (GET /api/auth/hint). */
  loginHint: LoginHint;
  /** Throws when the database cannot answer a trivial query. */
  pingDatabase(): Promise<void>;
  /** Export bundles and their import (GET /api/sessions/:id/export, POST /api/sessions/import). */
  bundles: { export: SessionExportDeps; import: SessionImporter };
  /** OpenTelemetry: span naming for GET /api/sessions/:id/otel and the live push's state. */
  telemetry: Pick<Telemetry, "naming" | "status">;
  /** Whether the database takes writes (server/db/health.ts owns the state). */
  database: DatabaseStatusView;
  /** Full-text search over the ledger (throws SearchUnavailableError while its index is not open). */
  search?: Pick<SearchService, "search">;
  /** The chat platform adapters the server runs (none when no platform is configured). */
  platforms: Pick<AdapterRegistry, "list" | "find" | "audience">;
  /** Re-runs and what-if forks (POST /api/sessions/:id/rerun). */
  reruns: Pick<RerunService, "run">;
  /** GET /api/cluster: the nodes and their sessions (a single process: itself). */
  cluster: { status(): Promise<ClusterStatus> };
}

export interface DatabaseStatusView {
  status(): DbStatus;
  /** False while the disk is full or the database cannot be written: intake answers 503 meanwhile. */
  acceptsWrites(): boolean;
}

export const apiRoute = routeBuilder<ApiContext>();

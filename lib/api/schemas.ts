// HTTP API wire shapes (docs/interface.md#http-api): request bodies, queries and responses. Used by
// the server's handlers, the dashboard's fetchers and the tests alike.
import { z } from "zod";
import { endpointStatusSchema } from "../llm/endpoints";
import { agentStateSchema, monitorEventSchema, stageIdSchema } from "../events/schemas";
import { historyMessageSchema } from "../chat/history";
import { jsonObjectSchema, toolExecutionResultSchema, toolSpecSchema } from "../tools/schemas";
import { sessionOriginSchema } from "../rerun/schemas";

export const MAX_TEXT_CHARS = 8_000;
export const MAX_BODY_BYTES = 64 * 1024;

/** httpOnly cookie the dashboard's login sets (a random server-side login id). */
export const OPERATOR_COOKIE = "maisaka_operator";
/** Socket.IO namespace of the live stream. */
export const MONITOR_NAMESPACE = "/monitor";
/** Ledger stream of events that belong to no session (global tool toggles). */
export const GLOBAL_STREAM_ID = "_global";
/** Ledger stream of the chat platform connections (platform.connected / platform.disconnected). */
export const PLATFORM_STREAM_ID = "_platforms";
/** Ledger stream of usage alerts (usage.budget_crossed). */
export const USAGE_STREAM_ID = "_usage";
/** The streams of no session that GET /api/sessions/:id/events serves all the same. */
export const SESSIONLESS_STREAM_IDS: ReadonlySet<string> = new Set([
  GLOBAL_STREAM_ID,
  PLATFORM_STREAM_ID,
  USAGE_STREAM_ID,
]);

export const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:-]+$/, "letters, digits, _ . : - only");

/** The MCP gateway's tool registry scope (it names no chat session). */
const GATEWAY_SCOPE_ID = "mcp-gateway";

/**
 * Ids a chat session may not take: streams and scopes of their own ("_global" and anything else
 * starting with "_"), the gateway's scope, and the path segments "." and ".." (a URL would resolve
 * them away).
 */
export const RESERVED_SESSION_IDS: ReadonlySet<string> = new Set([
  GLOBAL_STREAM_ID,
  PLATFORM_STREAM_ID,
  USAGE_STREAM_ID,
  GATEWAY_SCOPE_ID,
  ".",
  "..",
]);

export function isReservedSessionId(id: string): boolean {
  return id.startsWith("_") || RESERVED_SESSION_IDS.has(id);
}

/**
 * Whether an id has the shape of a platform chat's session (docs/interface.md#platforms:
 * `<platform>:<account>:<kind>:<chat>`, e.g. `qq:<selfId>:group:<groupId>`): only that chat's own
 * messages create such a session.
 */
export function isPlatformSessionId(id: string): boolean {
  return /^[^:]+:[^:]+:(group|private|channel):[^:]+$/.test(id);
}

/** A new chat session's id: an id that is not reserved. */
export const newSessionIdSchema = idSchema.refine((id) => !isReservedSessionId(id), {
  message: "reserved id: ids starting with _ and the names _global, mcp-gateway, . and .. are not allowed",
});

/** Whether the database takes writes: "busy" (another writer holds the lock), "full" (no space), "error". */
const dbStateSchema = z.enum(["ok", "busy", "full", "error"]);
export type DbState = z.infer<typeof dbStateSchema>;
export const dbStatusSchema = z.object({ ok: z.boolean(), state: dbStateSchema, detail: z.string().optional() });
export type DbStatus = z.infer<typeof dbStatusSchema>;

export const healthSchema = z.object({
  ok: z.boolean(),
  model: z.object({ provider: z.string(), name: z.string(), simulated: z.boolean() }),
  db: dbStatusSchema,
  version: z.string().optional(),
});
export type Health = z.infer<typeof healthSchema>;

// Login and the account answers live with the accounts (lib/api/accounts.ts).
export { authMeSchema } from "./accounts";

export const sessionSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  isGroupChat: z.boolean(),
  platform: z.string(),
  groupId: z.string().nullable(),
  userId: z.string().nullable(),
  agentState: agentStateSchema,
  /** The running runtime's stage; "" when it is not running. */
  stage: z.union([stageIdSchema, z.literal("")]),
  stageDetail: z.string(),
  roundText: z.string(),
  lastActiveAt: z.number(),
  createdAt: z.number(),
  cycleCount: z.number().int(),
  lastSeq: z.number().int(),
  running: z.boolean(),
  /** Messages received and not yet taken by a turn. */
  pendingMessages: z.number().int(),
  /** When the armed wait timer fires (agentState "wait"), else null. */
  waitDeadline: z.number().nullable(),
  /** Every model call of the session (all tasks, learning included). */
  totalTokens: z.number().int(),
  /** USD from the price table (config models.prices); calls of unpriced models are not in it. */
  costUsd: z.number(),
  /** Calls whose model has no price. */
  unpricedCalls: z.number().int(),
  /** Archived since then (runtime unloaded, ledger kept for replay); null: listed. */
  archivedAt: z.number().nullable(),
  /** Imported from an export bundle (POST /api/sessions/import): read-only, never run. */
  imported: z.boolean().optional(),
  /** A re-run or fork of another session (read-only, never run live); absent on every other. */
  origin: sessionOriginSchema.optional(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const createSessionBodySchema = z
  .object({
    id: newSessionIdSchema.optional(),
    name: z.string().trim().min(1).max(200).optional(),
    isGroupChat: z.boolean().default(true),
    platform: z.string().trim().min(1).max(64).default("dashboard"),
    groupId: z.string().trim().min(1).max(128).optional(),
    userId: z.string().trim().min(1).max(128).optional(),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof createSessionBodySchema>;

/** Largest page of GET /api/sessions. */
const MAX_SESSIONS_PAGE = 200;

/** What GET /api/sessions sorts by (ties by id): created, last activity, name, tokens, cost, pending. */
export const sessionSortSchema = z.enum(["created", "lastActivity", "name", "tokens", "cost", "pending"]);
export type SessionSortField = z.infer<typeof sessionSortSchema>;
/** exclude (default): listed sessions only; only: the archived ones; include: both. */
export const archivedFilterSchema = z.enum(["exclude", "only", "include"]);
export type ArchivedFilter = z.infer<typeof archivedFilterSchema>;

const bound = z.coerce.number().finite().min(0).optional();

/** Most sessions one `ids` lookup names (a page of search hits, a usage table's sessions). */
export const MAX_SESSION_IDS = MAX_SESSIONS_PAGE;

export const sessionsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_SESSIONS_PAGE).default(50),
  /**
   * Only these sessions (comma-separated ids): how a page that shows session ids finds their names.
   * The other filters still apply (pass `archived=include` for archived ones too).
   */
  ids: z
    .string()
    .transform((v) => v.split(",").filter(Boolean))
    .pipe(z.array(idSchema).max(MAX_SESSION_IDS))
    .optional(),
  /** nextCursor of the previous page (opaque; only valid with the same sort and order). */
  cursor: z.string().min(1).max(512).optional(),
  /** Substring of the name or id (case-insensitive). */
  q: z.string().trim().max(200).optional(),
  /** The agent state now: running, waiting or idle (stop). */
  state: agentStateSchema.optional(),
  platform: z.string().trim().min(1).max(64).optional(),
  sort: sessionSortSchema.default("created"),
  /** Default: asc for name, desc for the others (newest, most active, largest first). */
  order: z.enum(["asc", "desc"]).optional(),
  archived: archivedFilterSchema.default("exclude"),
  /** Last activity within [activeFrom, activeTo] (epoch ms). */
  activeFrom: bound,
  activeTo: bound,
  minTokens: bound,
  maxTokens: bound,
  /** USD. */
  minCost: bound,
  maxCost: bound,
});
export type SessionsQuery = z.infer<typeof sessionsQuerySchema>;

/** In the query's sort, ties by id (same direction): a keyset order, so pages never overlap or skip (inserts included). */
export const sessionListSchema = z.object({
  sessions: z.array(sessionSummarySchema),
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: z.string().nullable(),
});
export type SessionList = z.infer<typeof sessionListSchema>;
export const createdSessionSchema = z.object({ id: z.string() });
export const sessionParamsSchema = z.object({ id: idSchema });

/** POST /api/sessions/:id/archive and /unarchive. */
export const archiveSessionBodySchema = z.object({ reason: z.string().trim().max(500).default("") }).strict();
export const archivedSessionSchema = z.object({ id: z.string(), archivedAt: z.number().nullable() });
export type ArchivedSession = z.infer<typeof archivedSessionSchema>;
/** DELETE /api/sessions/:id: gone for good (every table's rows), so a reason is required (audited). */
export const deleteSessionBodySchema = z.object({ reason: z.string().trim().min(1).max(500) }).strict();
export const deletedSessionSchema = z.object({
  id: z.string(),
  /** Rows removed per table. */
  removed: z.record(z.string(), z.number().int()),
});
export type DeletedSession = z.infer<typeof deletedSessionSchema>;

export const inboundMessageBodySchema = z
  .object({
    userId: z.string().trim().min(1).max(128),
    userName: z.string().trim().min(1).max(128),
    groupCard: z.string().trim().max(128).optional(),
    text: z.string().min(1).max(MAX_TEXT_CHARS),
    mentionsBot: z.boolean().optional(),
    atBot: z.boolean().optional(),
    replyTo: z.string().max(128).optional(),
    messageId: idSchema.optional(),
  })
  .strict();
export type InboundMessageBody = z.infer<typeof inboundMessageBodySchema>;

export const acceptedMessageSchema = z.object({ messageId: z.string() });

export const eventsQuerySchema = z.object({
  afterSeq: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(5_000).default(500),
});

export const eventsPageSchema = z.object({
  events: z.array(monitorEventSchema),
  nextAfterSeq: z.number().int(),
  lastSeq: z.number().int(),
});
export type EventsPage = z.infer<typeof eventsPageSchema>;

/** One entry of a session's history window (docs/engine-rules.md#message-kinds), as the engine holds it. */
export { historyMessageSchema };

export const sessionHistorySchema = z.object({
  sessionId: z.string(),
  /** "live": the running runtime's window; "snapshot": the last saved one; "none": never ran. */
  source: z.enum(["live", "snapshot", "none"]),
  history: z.array(historyMessageSchema),
});
export type SessionHistory = z.infer<typeof sessionHistorySchema>;

export const toolViewSchema = toolSpecSchema.extend({
  /** Effective state for the view (toggles applied). */
  enabled: z.boolean(),
  providerEnabled: z.boolean(),
  toggledBy: z
    .object({ scope: z.enum(["global", "session"]), actor: z.string(), reason: z.string(), ts: z.number() })
    .nullable()
    .optional(),
  shadowedBy: z.string().nullable(),
  placement: z.enum(["timing", "visible", "deferred"]),
});
export type ToolView = z.infer<typeof toolViewSchema>;

/** GET /api/icons/:id: a tool icon through the same-origin proxy (ids come from the tool listing). */
/** GET /api/sessions/:id/messages/:messageId/images/:index: a chat image, fetched by the server. */
export const chatImageParamsSchema = z.object({
  id: idSchema,
  messageId: z.string().min(1).max(128),
  index: z.coerce.number().int().min(0).max(99),
});

export const iconParamsSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{32}$/, "not an icon id") });

export const toolsQuerySchema = z.object({ sessionId: idSchema.optional() });
export const toolListSchema = z.object({ tools: z.array(toolViewSchema) });
export const toolParamsSchema = z.object({ name: z.string().min(1).max(256) });

export const toggleToolBodySchema = z
  .object({
    enabled: z.boolean(),
    sessionId: idSchema.optional(),
    /** Required: the audit says why (blank is refused). */
    reason: z.string().trim().min(1, "a reason is required").max(500),
  })
  .strict();
export type ToggleToolBody = z.infer<typeof toggleToolBodySchema>;

/** POST /api/tools/:name/invoke: a tool run by hand, in a session's context or the neutral one (no sessionId). */
export const invokeToolBodySchema = z
  .object({
    arguments: jsonObjectSchema.default({}),
    sessionId: idSchema.optional(),
    /** Required for a destructive tool (destructiveHint true, or absent: the MCP default). */
    confirm: z.boolean().default(false),
  })
  .strict();
export type InvokeToolBody = z.infer<typeof invokeToolBodySchema>;
export const invokeToolResponseSchema = z.object({ result: toolExecutionResultSchema });

export const toggleAuditEntrySchema = z.object({
  id: z.string(),
  toolName: z.string(),
  scope: z.enum(["global", "session"]),
  sessionId: z.string().nullable(),
  enabled: z.boolean(),
  oldEnabled: z.boolean().nullable(),
  actor: z.object({ id: z.string(), name: z.string() }),
  reason: z.string(),
  ts: z.number(),
});

export const auditQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1_000).default(200) });
export const toggleAuditListSchema = z.object({ entries: z.array(toggleAuditEntrySchema) });

export const toggleResultSchema = z.object({
  toolName: z.string(),
  scope: z.enum(["global", "session"]),
  sessionId: z.string().nullable(),
  enabled: z.boolean(),
  auditId: z.string(),
  /** seq of the tool.toggled event in the affected session's ledger (or the global "*" stream). */
  eventSeq: z.number().int(),
});

export const providerStatusSchema = z.object({
  name: z.string(),
  type: z.enum(["builtin", "plugin", "mcp"]),
  state: z.enum(["ready", "connecting", "failed", "disabled"]),
  toolCount: z.number().int(),
  lastError: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).default({}),
});
export type ProviderStatus = z.infer<typeof providerStatusSchema>;
export const providerListSchema = z.object({ providers: z.array(providerStatusSchema) });

/** GET /api/endpoints: the model endpoints, each with its kind, what it learned, errors, latency, tokens. */
export const endpointListSchema = z.object({ simulated: z.boolean(), endpoints: z.array(endpointStatusSchema) });

/** Error body of every non-2xx answer. */
export const apiErrorSchema = z.object({
  error: z.string(),
  fields: z
    .array(z.object({ path: z.string(), message: z.string(), in: z.enum(["body", "query", "params"]).optional() }))
    .optional(),
  /** 409 from POST /api/tools/:name/invoke: the tool is destructive; send again with confirm: true. */
  needsConfirm: z.boolean().optional(),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/**
 * Socket.IO /monitor protocol. Caps keep one client from growing the server: a "*" resume names at
 * most MAX_AFTER_SEQS sessions (the dashboard names the sessions it has listed, a few pages).
 */
export const MAX_AFTER_SEQS = 10_000;

export const subscribeSchema = z
  .object({
    sessionId: z.union([idSchema, z.literal("*")]),
    /**
     * Replay ledger events with seq > afterSeq first (for "*": of every session). Absent: from now on
     * (no replay, but still no gap from the moment of subscribing).
     */
    afterSeq: z.number().int().min(0).optional(),
    /** For "*": resume each session from its own last seen seq. */
    afterSeqs: z
      .record(idSchema, z.number().int().min(0))
      .refine((cursors) => Object.keys(cursors).length <= MAX_AFTER_SEQS, {
        message: `at most ${MAX_AFTER_SEQS} entries`,
      })
      .optional(),
  })
  .strict()
  .refine((req) => req.afterSeqs === undefined || req.sessionId === "*", {
    message: 'afterSeqs is only for sessionId "*"',
    path: ["afterSeqs"],
  });
export type SubscribeRequest = z.infer<typeof subscribeSchema>;

/** `unsubscribe` payload; none stops every subscription of the socket. */
export const unsubscribeSchema = z.object({ sessionId: z.union([idSchema, z.literal("*")]) }).strict();

/** Answer to a `subscribe` or `unsubscribe` sent with an acknowledgement callback. */
export const subscribeAckSchema = z.object({
  ok: z.boolean(),
  sessionId: z.string().optional(),
  error: z.string().optional(),
  fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type SubscribeAck = z.infer<typeof subscribeAckSchema>;

/**
 * Sent when the server dropped a subscription (the client fell too far behind): resubscribe with
 * this cursor to continue from the ledger. For "*", afterSeqs holds each session's last sent seq.
 */
export const resyncSchema = z.object({
  sessionId: z.string(),
  afterSeq: z.number().int(),
  afterSeqs: z.record(z.string(), z.number().int()).optional(),
  reason: z.string(),
});
export type Resync = z.infer<typeof resyncSchema>;

/** `error` message of the /monitor namespace (a refused subscribe payload). */
export const monitorErrorSchema = z.object({
  error: z.string(),
  fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type MonitorError = z.infer<typeof monitorErrorSchema>;

/** A point in time in a query: ms since the epoch, or ISO 8601 text ("2026-12-01T10:00:00Z"). */
export const instantSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .transform((raw, ctx) => {
    const ms = /^\d+$/.test(raw) ? Number(raw) : /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: "custom", message: "expected ms since the epoch or an ISO 8601 date-time" });
      return z.NEVER;
    }
    return ms;
  });

const usageGroupBySchema = z.enum(["task", "model", "session", "hour", "endpoint", "day"]);

/** GET /api/usage: calls with ts in [from, to); `to` defaults to now, `from` to 24 hours before `to`. */
export const usageQuerySchema = z
  .object({ from: instantSchema.optional(), to: instantSchema.optional(), groupBy: usageGroupBySchema.default("task") })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: "from must not be after to",
    path: ["from"],
  });

export const usageRowSchema = z.object({
  /** Task, model, endpoint or session id; hour and day: the bucket's start (ISO, UTC). */
  key: z.string(),
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  cachedTokens: z.number().int(),
  /** USD of the priced calls (config models.prices). */
  costUsd: z.number(),
  /** Calls whose model has no price: their cost is not in costUsd. */
  unpricedCalls: z.number().int(),
  /** Latency percentiles (nearest rank) over the group's calls. */
  p50Ms: z.number(),
  p95Ms: z.number(),
  /** Calls that failed. */
  errors: z.number().int(),
});
export const usageListSchema = z.object({ rows: z.array(usageRowSchema) });
export type UsageList = z.infer<typeof usageListSchema>;

/** Most buckets one series answer holds (30 days by hour is 720). */
export const MAX_USAGE_BUCKETS = 2_000;

/** The chart buckets of GET /api/usage/series and their length (UTC: every bucket starts at a multiple of it). */
export const USAGE_BUCKET_MS = { "5m": 300_000, "15m": 900_000, hour: 3_600_000, day: 86_400_000 } as const;
export type UsageBucket = keyof typeof USAGE_BUCKET_MS;

/** How many buckets [from, to) spans (checked against MAX_USAGE_BUCKETS before querying). */
export function bucketCount(from: number, to: number, bucketMs: number): number {
  return to <= from ? 0 : Math.floor((to - 1) / bucketMs) - Math.floor(from / bucketMs) + 1;
}
const usageBucketSchema = z.enum(["5m", "15m", "hour", "day"]) satisfies z.ZodType<UsageBucket>;

/**
 * GET /api/usage/series: per time bucket (UTC 5 or 15 minutes, hour or day) and per key (task, model, endpoint or
 * session), for charts. The `limit` keys of highest cost (then calls) are kept; the rest are summed
 * into one series keyed "(other)".
 */
export const usageSeriesQuerySchema = z
  .object({
    from: instantSchema.optional(),
    to: instantSchema.optional(),
    bucket: usageBucketSchema.default("hour"),
    by: z.enum(["task", "model", "endpoint", "session"]).default("task"),
    limit: z.coerce.number().int().min(1).max(50).default(8),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: "from must not be after to",
    path: ["from"],
  });
export type UsageSeriesQuery = z.infer<typeof usageSeriesQuerySchema>;

/** Key of the series that sums the keys beyond the limit. */
export const USAGE_OTHER_KEY = "(other)";

export const usageSeriesEntrySchema = z.object({
  key: z.string(),
  /** One value per bucket, aligned with `buckets`. */
  calls: z.array(z.number().int()),
  promptTokens: z.array(z.number().int()),
  completionTokens: z.array(z.number().int()),
  costUsd: z.array(z.number()),
  /** Calls of models without a price (not in costUsd). */
  unpricedCalls: z.array(z.number().int()),
  errors: z.array(z.number().int()),
});
export const usageSeriesSchema = z.object({
  from: z.number(),
  to: z.number(),
  bucketMs: z.number().int(),
  /** Every bucket's start (ms epoch, UTC) from the one holding `from` to the one holding `to - 1`. */
  buckets: z.array(z.number()),
  series: z.array(usageSeriesEntrySchema),
  /** Latency percentiles (nearest rank) of each bucket's calls, all keys together; null: no call. */
  latency: z.object({ p50Ms: z.array(z.number().nullable()), p95Ms: z.array(z.number().nullable()) }),
  /** The config has prices (models.prices): without any, every cost is 0 (the page says why). */
  pricesConfigured: z.boolean(),
});
export type UsageSeries = z.infer<typeof usageSeriesSchema>;

/** GET /api/usage/budget: today's spend (UTC day) against each configured daily budget. */
export const usageBudgetStateSchema = z.object({
  day: z.string(),
  timezone: z.literal("UTC"),
  budgets: z.array(
    z.object({
      scope: z.enum(["overall", "endpoint"]),
      endpoint: z.string().optional(),
      limitUsd: z.number(),
      spentUsd: z.number(),
      over: z.boolean(),
    }),
  ),
});
export type UsageBudgetState = z.infer<typeof usageBudgetStateSchema>;

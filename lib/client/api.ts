// Browser-side HTTP client of the /api routes (docs/interface.md#http-api). Every answer is parsed with
// the wire schema from lib/api, so a contract drift fails loudly at the edge instead of in a view.
// Auth rides on the httpOnly login cookie; the token never lives in page JavaScript.
import { z } from "zod";
import { EARLY_FETCH_INIT, takeEarlyFetch } from "./early-fetch";
import {
  acceptedMessageSchema,
  archivedSessionSchema,
  apiErrorSchema,
  authMeSchema,
  createdSessionSchema,
  deletedSessionSchema,
  eventsPageSchema,
  healthSchema,
  endpointListSchema,
  providerListSchema,
  sessionHistorySchema,
  sessionListSchema,
  sessionSummarySchema,
  toggleAuditListSchema,
  toggleResultSchema,
  toolListSchema,
  invokeToolResponseSchema,
  usageBudgetStateSchema,
  usageListSchema,
  usageSeriesSchema,
  type UsageSeriesQuery,
  type CreateSessionBody,
  type EventsPage,
  type InboundMessageBody,
  type SessionsQuery,
} from "../api/schemas";
import {
  accountListSchema,
  auditPageSchema,
  createdAccountSchema,
  loginHintSchema,
  loginSessionListSchema,
  updatedAccountSchema,
  type AuditListQuery,
  type CreateAccountBody,
  type LoginBody,
  type UpdateAccountBody,
} from "../api/accounts";
import {
  onebotAudienceSchema,
  operatorSendResponseSchema,
  platformsResponseSchema,
  type OneBotAudiencePatch,
  type OperatorSendBody,
} from "../platforms/status";
import {
  mcpServerListSchema,
  mcpServerViewSchema,
  pluginsViewSchema,
  type McpServerChanges,
  type McpServerCreateBody,
} from "../api/sources";
import {
  analyticsCyclesSchema,
  analyticsSeriesSchema,
  type AnalyticsCyclesQuery,
  type AnalyticsQuery,
} from "../api/analytics";
import { importedSessionSchema, BUNDLE_CONTENT_TYPE } from "../api/bundle";
import { clusterSchema } from "../api/cluster";
import { telemetryStatusSchema } from "../api/telemetry";
import { searchResultSchema } from "../api/search";
import { diffApiPath, diffResponseSchema, type DiffRef } from "../rerun/diff-api";

export class ApiRequestError extends Error {
  override name = "ApiRequestError";
  constructor(
    readonly status: number,
    message: string,
    readonly fields: { path: string; message: string }[] = [],
    /** A destructive tool run without confirmation (POST /api/tools/:name/invoke answers 409). */
    readonly needsConfirm = false,
  ) {
    super(message);
  }
}

/** The server could not be reached at all (as opposed to answering with an error). */
export class NetworkError extends Error {
  override name = "NetworkError";
}

/**
 * One API round trip: the status and the parsed JSON body (null when none). An error status throws
 * ApiRequestError with the server's message and fields, except those in `answered` (a 409 conflict
 * that carries the current record is an answer, not a failure).
 */
export async function fetchJson(
  path: string,
  init: RequestInit = {},
  answered: readonly number[] = [],
): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    const early = init.method === undefined && init.headers === undefined && takeEarlyFetch(path);
    res = await (early
      ? fetch(path, EARLY_FETCH_INIT)
      : fetch(path, {
          ...init,
          credentials: "same-origin",
          headers: {
            accept: "application/json",
            ...(init.body ? { "content-type": "application/json" } : {}),
            ...init.headers,
          },
        }));
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error));
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok && !answered.includes(res.status)) {
    const parsed = apiErrorSchema.safeParse(body);
    const message = parsed.success ? parsed.data.error : `HTTP ${res.status}`;
    throw new ApiRequestError(
      res.status,
      message,
      parsed.success ? (parsed.data.fields ?? []) : [],
      parsed.success && parsed.data.needsConfirm === true,
    );
  }
  return { status: res.status, body };
}

/** An answer checked against its wire schema; one that does not fit is an error at the edge. */
export function parseAnswer<S extends z.ZodType>(schema: S, body: unknown, path: string, status: number): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiRequestError(
      status,
      `unexpected answer from ${path}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

async function request<S extends z.ZodType>(
  path: string,
  schema: S | null,
  init: RequestInit = {},
): Promise<z.infer<S>> {
  const { status, body } = await fetchJson(path, init);
  // Routes answering 204 have no body to check.
  if (schema === null) return undefined as z.infer<S>;
  return parseAnswer(schema, body, path, status);
}

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

export type EditOutcome<T> = { ok: true; record: T } | { ok: false; conflict: string; current: T };

const conflictSchema = z.object({ error: z.string(), current: z.unknown() });

/**
 * An edit the server may refuse as made from stale data (409 carrying the current record): the
 * record, or the conflict with what is there now, so the page can say so and show it.
 */
export async function editOrConflict<S extends z.ZodType>(
  schema: S,
  path: string,
  method: string,
  body: unknown,
): Promise<EditOutcome<z.infer<S>>> {
  const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const { status, body: answer } = await fetchJson(path, init, [409]);
  if (status === 409) {
    const conflict = parseAnswer(conflictSchema, answer, path, status);
    return { ok: false, conflict: conflict.error, current: parseAnswer(schema, conflict.current, path, status) };
  }
  return { ok: true, record: parseAnswer(schema, answer, path, status) };
}

/** "?a=1&b=x" from the defined, non-empty values ("" when none). */
/** The chart series' path (app/usage/page.tsx starts the page's first one early with it). */
export function usageSeriesPath(query: Partial<UsageSeriesQuery>): string {
  return `/api/usage/series${queryString(query)}`;
}

export function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
const enc = encodeURIComponent;

/** Ledger page size: the server's maximum, so a 10,000-event session loads in two requests. */
export const LEDGER_PAGE = 5_000;

export const api = {
  health: () => request("/api/health", healthSchema),
  me: () => request("/api/auth/me", authMeSchema),
  loginHint: () => request("/api/auth/hint", loginHintSchema),
  /** `{ token }` or `{ username, password }`. */
  login: (body: LoginBody) => request("/api/auth/login", authMeSchema, json("POST", body)),
  logout: () => request<z.ZodVoid>("/api/auth/logout", null, { method: "POST" }),
  /** One page of the session list (newest first); pass the previous page's nextCursor as cursor. */
  /** `ids`: comma-separated, only those sessions (their names). */
  sessions: (query: Partial<Omit<SessionsQuery, "ids">> & { ids?: string } = {}) =>
    request(`/api/sessions${queryString(query)}`, sessionListSchema),
  session: (id: string) => request(`/api/sessions/${enc(id)}`, sessionSummarySchema),
  archiveSession: (id: string, reason: string) =>
    request(`/api/sessions/${enc(id)}/archive`, archivedSessionSchema, json("POST", { reason })),
  unarchiveSession: (id: string) =>
    request(`/api/sessions/${enc(id)}/unarchive`, archivedSessionSchema, json("POST", {})),
  /** Gone for good (every row of the session); the reason is audited. */
  deleteSession: (id: string, reason: string) =>
    request(`/api/sessions/${enc(id)}`, deletedSessionSchema, json("DELETE", { reason })),
  createSession: (body: Partial<CreateSessionBody>) =>
    request("/api/sessions", createdSessionSchema, json("POST", body)),
  sendMessage: (id: string, body: InboundMessageBody) =>
    request(`/api/sessions/${enc(id)}/messages`, acceptedMessageSchema, json("POST", body)),
  events: (id: string, afterSeq: number, limit = LEDGER_PAGE) =>
    request(`/api/sessions/${enc(id)}/events?afterSeq=${afterSeq}&limit=${limit}`, eventsPageSchema),
  history: (id: string) => request(`/api/sessions/${enc(id)}/history`, sessionHistorySchema),
  tools: (sessionId: string | null) =>
    request(sessionId ? `/api/tools?sessionId=${enc(sessionId)}` : "/api/tools", toolListSchema),
  toggleTool: (name: string, body: { enabled: boolean; sessionId?: string; reason: string }) =>
    request(`/api/tools/${enc(name)}`, toggleResultSchema, json("PATCH", body)),
  invokeTool: (name: string, body: { arguments: Record<string, unknown>; sessionId?: string; confirm?: boolean }) =>
    request(`/api/tools/${enc(name)}/invoke`, invokeToolResponseSchema, json("POST", body)),
  audit: () => request("/api/tools/audit", toggleAuditListSchema),
  providers: () => request("/api/providers", providerListSchema),
  telemetry: () => request("/api/telemetry", telemetryStatusSchema),
  /** An export bundle (a file the operator picked) becomes a new read-only session. */
  importSession: (bundle: Blob) =>
    request("/api/sessions/import", importedSessionSchema, {
      method: "POST",
      body: bundle,
      headers: { "content-type": BUNDLE_CONTENT_TYPE },
    }),
  /** Where the browser downloads a session's bundle (the login cookie authenticates the GET). */
  exportUrl: (id: string) => `/api/sessions/${enc(id)}/export`,
  endpoints: () => request("/api/endpoints", endpointListSchema),
  platforms: () => request("/api/platforms", platformsResponseSchema),
  cluster: () => request("/api/cluster", clusterSchema),
  /** Refused (a conflict) when a part changed is no longer what `base` says. */
  setAudience: (body: OneBotAudiencePatch) =>
    editOrConflict(onebotAudienceSchema, "/api/platforms/onebot/audience", "PATCH", body),
  mcpServers: () => request("/api/mcp-servers", mcpServerListSchema),
  /** Create, edit and remove answer 409 with the current view (a name taken, a stale version): an answer, not a failure. */
  createMcpServer: (body: McpServerCreateBody) => fetchJson("/api/mcp-servers", json("POST", body), [409]),
  updateMcpServer: (name: string, body: { version: number; changes: McpServerChanges; reason: string }) =>
    fetchJson(`/api/mcp-servers/${enc(name)}`, json("PATCH", body), [409]),
  deleteMcpServer: (name: string, body: { version: number; reason: string }) =>
    fetchJson(`/api/mcp-servers/${enc(name)}`, json("DELETE", body), [409]),
  restartMcpServer: (name: string, reason: string) =>
    request(`/api/mcp-servers/${enc(name)}/restart`, mcpServerViewSchema, json("POST", { reason })),
  plugins: () => request("/api/plugins", pluginsViewSchema),
  reloadPlugins: (reason: string) => request("/api/plugins/reload", pluginsViewSchema, json("POST", { reason })),
  accounts: () => request("/api/accounts", accountListSchema),
  /** The answer's token is shown once: the server keeps only its hash. */
  createAccount: (body: CreateAccountBody) => request("/api/accounts", createdAccountSchema, json("POST", body)),
  updateAccount: (id: string, body: UpdateAccountBody) =>
    request(`/api/accounts/${enc(id)}`, updatedAccountSchema, json("PATCH", body)),
  deleteAccount: (id: string) => request<z.ZodVoid>(`/api/accounts/${enc(id)}`, null, { method: "DELETE" }),
  loginSessions: () => request("/api/auth/sessions", loginSessionListSchema),
  revokeLoginSession: (id: string) => request<z.ZodVoid>(`/api/auth/sessions/${enc(id)}`, null, { method: "DELETE" }),
  /** Every operator change, newest first; pass the previous page's nextCursor as cursor. */
  auditLog: (query: Partial<AuditListQuery>) => request(`/api/audit${queryString(query)}`, auditPageSchema),
  /** Behaviour analytics: series per metric over [from, to). */
  analytics: (query: Partial<AnalyticsQuery>) => request(`/api/analytics${queryString(query)}`, analyticsSeriesSchema),
  /** The cycles behind one bar of an analytics chart, newest first. */
  analyticsCycles: (query: Partial<AnalyticsCyclesQuery>) =>
    request(`/api/analytics/cycles${queryString(query)}`, analyticsCyclesSchema),
  /** GET /api/search: parameters as the route takes them (lib/api/search.ts). */
  search: (query: Record<string, string | number | undefined>) =>
    request(`/api/search${queryString(query)}`, searchResultSchema),
  /** GET /api/diff: two cycles (refs with cycleId) or two sessions. */
  diff: (a: DiffRef, b: DiffRef) => request(diffApiPath(a, b), diffResponseSchema),
  /** Speaks as the bot into the session's real chat (platform sessions) or its local stream; 502: not delivered. */
  sendAsBot: (id: string, body: OperatorSendBody) =>
    request(`/api/sessions/${enc(id)}/send`, operatorSendResponseSchema, json("POST", body)),
  /** Usage groups over [from, to) (ms epochs) with sums and latency percentiles. */
  usage: (query: { from: number; to: number; groupBy: "task" | "model" | "endpoint" | "session" | "hour" | "day" }) =>
    request(`/api/usage${queryString(query)}`, usageListSchema),
  usageSeries: (query: Partial<UsageSeriesQuery>) => request(usageSeriesPath(query), usageSeriesSchema),
  usageBudget: () => request("/api/usage/budget", usageBudgetStateSchema),
};

/**
 * Reads a session's ledger after `afterSeq` page by page until its end. `onPage` sees each page as
 * it lands (progress, early merge); the pages are returned in order.
 */
export async function loadLedger(
  sessionId: string,
  afterSeq: number,
  onPage?: (page: EventsPage) => void,
  fetchPage: (id: string, after: number) => Promise<EventsPage> = (id, after) => api.events(id, after),
): Promise<EventsPage["events"]> {
  const out: EventsPage["events"] = [];
  let cursor = afterSeq;
  for (;;) {
    const page = await fetchPage(sessionId, cursor);
    out.push(...page.events);
    onPage?.(page);
    if (page.events.length === 0 || page.nextAfterSeq <= cursor || page.nextAfterSeq >= page.lastSeq) return out;
    cursor = page.nextAfterSeq;
  }
}

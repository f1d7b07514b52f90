// Browser-side HTTP client of the /api routes (interface.md "HTTP API"). Every answer is parsed with
// the wire schema from lib/api, so a contract drift fails loudly at the edge instead of in a view.
// Auth rides on the httpOnly login cookie; the token never lives in page JavaScript.
import type { z } from "zod";
import {
  acceptedMessageSchema,
  apiErrorSchema,
  authMeSchema,
  createdSessionSchema,
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
  type CreateSessionBody,
  type EventsPage,
  type InboundMessageBody,
  type SessionsQuery,
} from "../api/schemas";
import {
  accountListSchema,
  auditPageSchema,
  createdAccountSchema,
  loginSessionListSchema,
  updatedAccountSchema,
  type AuditListQuery,
  type CreateAccountBody,
  type LoginBody,
  type UpdateAccountBody,
} from "../api/accounts";
import { searchResultSchema } from "../api/search";
import { operatorSendResponseSchema, platformsResponseSchema, type OperatorSendBody } from "../platforms/status";

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
    res = await fetch(path, {
      ...init,
      credentials: "same-origin",
      headers: {
        accept: "application/json",
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
    });
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

async function request<S extends z.ZodType>(
  path: string,
  schema: S | null,
  init: RequestInit = {},
): Promise<z.infer<S>> {
  const { status, body } = await fetchJson(path, init);
  // Routes answering 204 have no body to check.
  if (schema === null) return undefined as z.infer<S>;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiRequestError(
      status,
      `unexpected answer from ${path}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

/** "?a=1&b=x" from the defined, non-empty values ("" when none). */
function queryString(query: Record<string, string | number | undefined>): string {
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
  /** `{ token }` or `{ username, password }`. */
  login: (body: LoginBody) => request("/api/auth/login", authMeSchema, json("POST", body)),
  logout: () => request<z.ZodVoid>("/api/auth/logout", null, { method: "POST" }),
  /** One page of the session list (newest first); pass the previous page's nextCursor as cursor. */
  sessions: (query: Partial<SessionsQuery> = {}) => request(`/api/sessions${queryString(query)}`, sessionListSchema),
  session: (id: string) => request(`/api/sessions/${enc(id)}`, sessionSummarySchema),
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
  endpoints: () => request("/api/endpoints", endpointListSchema),
  platforms: () => request("/api/platforms", platformsResponseSchema),
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
  /** GET /api/search: parameters as the route takes them (lib/api/search.ts). */
  search: (query: Record<string, string | number | undefined>) =>
    request(`/api/search${queryString(query)}`, searchResultSchema),
  /** Speaks as the bot into the session's real chat (platform sessions) or its local stream; 502: not delivered. */
  sendAsBot: (id: string, body: OperatorSendBody) =>
    request(`/api/sessions/${enc(id)}/send`, operatorSendResponseSchema, json("POST", body)),
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

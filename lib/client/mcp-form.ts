// The Sources page's MCP server form as plain values, and the request bodies made from them. Secrets
// (env values of a stdio server, header values and the bearer token of an HTTP one) are write-only:
// the form knows which are set, never their values; an empty input keeps a set secret.
import {
  mcpServerConflictSchema,
  type McpServerChanges,
  type McpServerCreateBody,
  type McpServerView,
} from "../api/sources";

export type McpTransport = "stdio" | "streamable_http" | "sse";

export interface McpFormValues {
  name: string;
  transport: McpTransport;
  enabled: boolean;
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  url: string;
  timeoutMs: string;
  /** Secrets already set (env for stdio, headers for HTTP): a new value, or removed; empty keeps it. */
  secretEdits: Record<string, { value: string; remove: boolean }>;
  /** New secrets, one `NAME=value` per line. */
  newSecrets: string;
  bearerToken: string;
  removeBearer: boolean;
}

export function initialFormValues(view?: McpServerView): McpFormValues {
  const config = view?.config;
  const secrets = view?.secrets;
  const setNames = secrets ? (config?.transport === "stdio" ? secrets.env : secrets.headers) : [];
  return {
    name: view?.name ?? "",
    transport: config?.transport ?? "stdio",
    enabled: config?.enabled ?? true,
    command: config?.command ?? "",
    args: (config?.args ?? []).join("\n"),
    cwd: config?.cwd ?? "",
    url: config?.url ?? "",
    timeoutMs: String(config?.timeoutMs ?? 30_000),
    secretEdits: Object.fromEntries(setNames.map((name) => [name, { value: "", remove: false }])),
    newSecrets: "",
    bearerToken: "",
    removeBearer: false,
  };
}

/** `NAME=value` lines (blank lines skipped; the first `=` splits, so values may hold more). */
export function parseSecretLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("=");
    const name = (at < 0 ? line : line.slice(0, at)).trim();
    if (name) out[name] = at < 0 ? "" : line.slice(at + 1);
  }
  return out;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** The server-side schema validates; a timeout that is not a number is sent as is to be refused there. */
const timeoutOf = (text: string) => Number(text.trim());

export function createBody(values: McpFormValues, reason: string): McpServerCreateBody {
  const secrets = parseSecretLines(values.newSecrets);
  const common = { name: values.name.trim(), enabled: values.enabled, timeoutMs: timeoutOf(values.timeoutMs) };
  const server =
    values.transport === "stdio"
      ? {
          ...common,
          transport: "stdio" as const,
          command: values.command.trim(),
          args: lines(values.args),
          env: secrets,
          ...(values.cwd.trim() ? { cwd: values.cwd.trim() } : {}),
        }
      : {
          ...common,
          transport: values.transport,
          url: values.url.trim(),
          headers: secrets,
          ...(values.bearerToken ? { bearerToken: values.bearerToken } : {}),
        };
  return { server, reason };
}

/** Only what differs from the loaded view; set secrets left empty are not sent, so they are kept. */
export function changesOf(values: McpFormValues, view: McpServerView): McpServerChanges {
  const changes: McpServerChanges = {};
  const config = view.config;
  if (values.enabled !== config.enabled) changes.enabled = values.enabled;
  if (values.transport !== config.transport) changes.transport = values.transport;
  if (timeoutOf(values.timeoutMs) !== config.timeoutMs) changes.timeoutMs = timeoutOf(values.timeoutMs);
  const secrets: Record<string, string | null> = {};
  for (const [name, edit] of Object.entries(values.secretEdits)) {
    if (edit.remove) secrets[name] = null;
    else if (edit.value) secrets[name] = edit.value;
  }
  Object.assign(secrets, parseSecretLines(values.newSecrets));
  if (values.transport === "stdio") {
    if (values.command.trim() !== (config.command ?? "")) changes.command = values.command.trim();
    const args = lines(values.args);
    if (JSON.stringify(args) !== JSON.stringify(config.args ?? [])) changes.args = args;
    const cwd = values.cwd.trim();
    if (cwd !== (config.cwd ?? "")) changes.cwd = cwd || null;
    if (Object.keys(secrets).length) changes.env = secrets;
  } else {
    if (values.url.trim() !== (config.url ?? "")) changes.url = values.url.trim();
    if (Object.keys(secrets).length) changes.headers = secrets;
    if (values.removeBearer) changes.bearerToken = null;
    else if (values.bearerToken) changes.bearerToken = values.bearerToken;
  }
  return changes;
}

/** The current version a 409 answer carries (a stale edit), for the message. */
export function conflictVersion(body: unknown): number | string {
  const parsed = mcpServerConflictSchema.safeParse(body);
  return parsed.success && parsed.data.current ? parsed.data.current.version : "?";
}

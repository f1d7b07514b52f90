// Every secret the server knows, masked in text it did not write itself: a stdio MCP server's stderr
// and the errors MCP servers answer, before they reach an admin's screen or the server's log. Secrets
// known by value (the operator token, MCP env, header and bearer values, OneBot access tokens, OTel and
// endpoint headers, model keys, passwords in database URLs, the Runner's IPC token) are replaced
// wherever they occur; those the server keeps only as hashes (accounts' API tokens, login ids) are
// recognised word by word.
import type { MaisakaConfig, McpServerConfig } from "../../lib/config/schema";

const SECRET_MASK = "[secret]";

/** Shorter values (an env value "1", "true") are not secrets worth mangling every line for. */
const MIN_SECRET_CHARS = 6;
/** Words that may be a credential kept as a hash: API tokens and login ids are base64url. */
const HASHED_CANDIDATE = /[A-Za-z0-9_-]{20,}/g;
/** Environment variables whose values are secrets by their name. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE/i;

/** Secrets read at each mask (so those changed live count at once); undefined and short ones are skipped. */
export type SecretSource = () => Iterable<string | undefined>;

export class SecretMask {
  private readonly sources = new Set<SecretSource>();
  private readonly checks = new Set<(word: string) => boolean>();

  /** Secrets known by value; returns the removal. */
  addSecrets(source: SecretSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Secrets kept as hashes: `isSecret` tells whether a word is one (it must not change state). */
  addCheck(isSecret: (word: string) => boolean): () => void {
    this.checks.add(isSecret);
    return () => this.checks.delete(isSecret);
  }

  mask(text: string): string {
    const values = new Set<string>();
    for (const source of this.sources)
      for (const value of source()) if (value !== undefined && value.length >= MIN_SECRET_CHARS) values.add(value);
    // Longest first: a secret containing another is masked whole.
    let masked = text;
    for (const value of [...values].sort((a, b) => b.length - a.length)) masked = masked.split(value).join(SECRET_MASK);
    if (!this.checks.size) return masked;
    const checks = [...this.checks];
    return masked.replace(HASHED_CANDIDATE, (word) => (checks.some((isSecret) => isSecret(word)) ? SECRET_MASK : word));
  }
}

/** The values an MCP server's definition hands over: env values, header values, its bearer token. */
export function mcpServerSecrets(server: McpServerConfig): string[] {
  if (server.transport === "stdio") return Object.values(server.env);
  return [...Object.values(server.headers), ...(server.bearerToken ? [server.bearerToken] : [])];
}

/**
 * The config file's secrets (OneBot access tokens, OTel and endpoint headers, MCP servers' secrets)
 * and those it names in the environment (endpoint keys, plugin grants).
 */
export function configSecrets(config: MaisakaConfig, env: Readonly<Record<string, string | undefined>>): string[] {
  const onebot = config.platforms.onebot;
  const named = [
    ...config.models.endpoints.flatMap((endpoint) => (endpoint.apiKeyEnv ? [endpoint.apiKeyEnv] : [])),
    ...Object.values(config.plugins.env ?? {}).flat(),
  ];
  return [
    ...(onebot.accessToken ? [onebot.accessToken] : []),
    ...onebot.forward.flatMap((forward) => (forward.accessToken ? [forward.accessToken] : [])),
    ...Object.values(config.telemetry.otlp?.headers ?? {}),
    ...config.models.endpoints.flatMap((endpoint) => Object.values(endpoint.headers)),
    ...config.mcp.servers.flatMap(mcpServerSecrets),
    ...named.flatMap((name) => (env[name] ? [env[name]] : [])),
  ];
}

/** Values of variables named like secrets (…_KEY, …_TOKEN, …PASSWORD…) and passwords in URL values. */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (SECRET_NAME.test(name)) secrets.push(value);
    const password = urlPassword(value);
    if (password) secrets.push(password, encodeURIComponent(password));
  }
  return secrets;
}

function urlPassword(value: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return null;
  try {
    const password = new URL(value).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}

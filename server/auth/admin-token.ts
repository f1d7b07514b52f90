// The operator token: MAISAKA_ADMIN_TOKEN, or one generated on first start into <dataDir>/admin-token
// (mode 0600) and read back on later starts.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Shorter tokens are refused: the token is the only credential of the dashboard and the API. */
export const MIN_TOKEN_CHARS = 16;

export interface AdminToken {
  token: string;
  /** Where it came from, for the start-up banner (never the token itself). */
  source: { kind: "env" } | { kind: "file"; path: string; created: boolean };
}

export class AdminTokenError extends Error {
  override name = "AdminTokenError";
}

/** Any environment map (process.env, or a plain object in tests). */
export type EnvMap = Readonly<Record<string, string | undefined>>;

export function resolveAdminToken(env: EnvMap, dataDir: string): AdminToken {
  const fromEnv = env.MAISAKA_ADMIN_TOKEN?.trim();
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_CHARS) {
      throw new AdminTokenError(`MAISAKA_ADMIN_TOKEN must be at least ${MIN_TOKEN_CHARS} characters`);
    }
    return { token: fromEnv, source: { kind: "env" } };
  }
  const file = path.resolve(dataDir, "admin-token");
  const existing = readTokenFile(file);
  if (existing) return { token: existing, source: { kind: "file", path: file, created: false } };
  const token = randomBytes(32).toString("base64url");
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // "wx": never overwrite a token another process wrote in the meantime.
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    const raced = readTokenFile(file);
    if (raced) return { token: raced, source: { kind: "file", path: file, created: false } };
    throw new AdminTokenError(`cannot write the operator token to ${file}: ${describe(error)}`);
  }
  return { token, source: { kind: "file", path: file, created: true } };
}

function readTokenFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw new AdminTokenError(`cannot read the operator token ${file}: ${describe(error)}`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_CHARS) {
    throw new AdminTokenError(
      `${file} holds no usable token (empty or shorter than ${MIN_TOKEN_CHARS}); delete it to generate a new one`,
    );
  }
  // A copied or restored file may have lost its mode: the token must stay private to this user.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return token;
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

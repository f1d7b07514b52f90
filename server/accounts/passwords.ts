// Password hashes: scrypt (node:crypto) with a per-password random salt; the parameters are stored
// with the hash ("scrypt$N$r$p$salt$hash", base64url) so they can be raised later without breaking
// older hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
/** Comfortably above 128 * N * r; bounds what a tampered stored hash can make a login allocate. */
const MAX_MEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, opts: ScryptOptions, keyBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, keyBytes, { ...opts, maxmem: MAX_MEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS, KEY_BYTES);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Constant-time over the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64url");
  const expected = Buffer.from(parts[5], "base64url");
  if (![N, r, p].every(Number.isSafeInteger) || expected.length === 0) return false;
  try {
    return timingSafeEqual(await derive(password, salt, { N, r, p }, expected.length), expected);
  } catch {
    return false;
  }
}

/** A hash no password matches, checked when the name is unknown so both cases take as long. */
export const DECOY_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${"A".repeat(22)}$${"A".repeat(43)}`;

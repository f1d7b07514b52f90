// What the platforms panel derives from a connection (lib/platforms/status.ts): heartbeat health.
import type { PlatformConnection } from "../platforms/status";

/**
 * A heartbeat older than this is shown as a warning. Implementations beat every 5 s (go-cqhttp,
 * Lagrange) to 30 s (NapCat); the server closes a silent connection after heartbeatTimeoutMs (60 s
 * by default), so 45 s without one means it is about to go.
 */
export const HEARTBEAT_STALE_MS = 45_000;

export type HeartbeatHealth = "none" | "fresh" | "stale";

export function heartbeatHealth(connection: PlatformConnection, now: number): HeartbeatHealth {
  if (connection.lastHeartbeatAt === null) return "none";
  return now - connection.lastHeartbeatAt > HEARTBEAT_STALE_MS ? "stale" : "fresh";
}

/** QQ ids typed into a list field: separated by spaces, commas or lines; repeats dropped; non-ids named. */
export function parseIdList(text: string): { ids: string[]; invalid: string[] } {
  const words = text.split(/[\s,，]+/).filter(Boolean);
  const ids = [...new Set(words.filter((w) => /^\d{1,20}$/.test(w)))];
  return { ids, invalid: words.filter((w) => !/^\d{1,20}$/.test(w)) };
}

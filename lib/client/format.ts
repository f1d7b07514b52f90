// Compact number and time formatting for dense operator views.

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1_000);
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export function formatClock(ts: number): string {
  const d = new Date(ts);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatDateTime(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(ts)}`;
}

/** mm:ss.d playhead time. */
export function formatPlayhead(ms: number): string {
  const total = Math.max(0, ms);
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = (total % 60_000) / 1_000;
  const core = `${pad(m)}:${s.toFixed(1).padStart(4, "0")}`;
  return h ? `${h}:${core}` : core;
}

export function formatAgo(ts: number, now: number): string {
  const d = Math.max(0, now - ts);
  if (d < 5_000) return "just now";
  if (d < 60_000) return `${Math.floor(d / 1_000)} s ago`;
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return `${Math.floor(d / 86_400_000)} d ago`;
}

/** Stable, readable JSON for copy buttons and argument display. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

/** Message ids can be UUIDs; the tail is enough to tell them apart at a glance. */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

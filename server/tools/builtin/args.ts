// Lenient readers for builtin tool arguments. The registry has already validated them against the
// schema; these cover direct calls and the model's usual near-misses (numbers as strings, blanks).

export function stringArg(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed || undefined;
}

export function intArg(args: Record<string, unknown>, key: string): number | undefined {
  const value = args[key];
  const parsed = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof parsed === "number" && Number.isFinite(parsed) ? Math.trunc(parsed) : undefined;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

const LOCAL_DATE_TIME = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * A point in time from "YYYY-MM-DD[ HH:MM[:SS]]" (server local time) or any ISO 8601 string with a
 * zone. A date alone means the start of that day, or its last millisecond when `endOfDay`.
 */
export function parseTime(text: string, endOfDay = false): number | null {
  const m = LOCAL_DATE_TIME.exec(text.trim());
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
    if (Number(m[4] ?? 0) > 23 || Number(m[5] ?? 0) > 59 || Number(m[6] ?? 0) > 59) return null;
    const date =
      m[4] === undefined
        ? endOfDay
          ? new Date(year, month, day, 23, 59, 59, 999)
          : new Date(year, month, day)
        : new Date(year, month, day, Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
    // Reject rollovers such as 2026-02-31.
    if (date.getFullYear() !== year || date.getMonth() !== month || date.getDate() !== day) return null;
    return date.getTime();
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "YYYY-MM-DD HH:MM" in server local time. */
export function formatTime(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// The diff of two settings: one entry per changed leaf value (arrays count as one value), named by
// its dotted path, with null for a value absent on one side (a route or an override added or removed).
import { isDeepStrictEqual } from "node:util";
import type { LiveSettings, SettingsDiffEntry } from "../../lib/api/settings";

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === "object" && v !== null && !Array.isArray(v);

export function settingsDiff(before: LiveSettings, after: LiveSettings): SettingsDiffEntry[] {
  const out: SettingsDiffEntry[] = [];
  walk(before, after, [], out);
  return out;
}

function walk(a: unknown, b: unknown, path: string[], out: SettingsDiffEntry[]): void {
  // A task route (models.tasks.<task>) is one value: its model and fallbacks go together.
  const route = path.length === 3 && path[0] === "models" && path[1] === "tasks";
  if (isPlain(a) && isPlain(b) && !route) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], [...path, key], out);
    return;
  }
  if (!isDeepStrictEqual(a, b)) out.push({ path: path.join("."), before: a ?? null, after: b ?? null });
}

// The Settings page's data: GET/PATCH /api/settings, and the form's draft turned into a change that
// names only what the operator edited. Values typed into number fields are sent as typed when they
// are not numbers, so the server's validation names the field (one source of the rules).
import {
  settingsConflictSchema,
  settingsPatchResponseSchema,
  settingsResponseSchema,
  type LiveSettings,
  type SettingsConflict,
  type SettingsPatchResponse,
  type SettingsResponse,
} from "../api/settings";
import { fetchJson } from "./api";

export const settingsQueryKey = ["settings"] as const;

export async function fetchSettings(): Promise<SettingsResponse> {
  const { body } = await fetchJson("/api/settings");
  return settingsResponseSchema.parse(body);
}

export type PatchOutcome =
  { kind: "ok"; result: SettingsPatchResponse } | { kind: "conflict"; conflict: SettingsConflict };

/** Sends a change (or its preview); 400 and 403 throw ApiRequestError (with the fields), 409 is an answer. */
export async function patchSettings(body: Record<string, unknown>): Promise<PatchOutcome> {
  const { status, body: json } = await fetchJson(
    "/api/settings",
    { method: "PATCH", body: JSON.stringify(body) },
    [409],
  );
  if (status === 409) return { kind: "conflict", conflict: settingsConflictSchema.parse(json) };
  return { kind: "ok", result: settingsPatchResponseSchema.parse(json) };
}

export type TaskName = keyof LiveSettings["models"]["tasks"];
export const TASKS: TaskName[] = ["planner", "timingGate", "replyer", "utils"];
export const PROMPT_LOCALES = ["zh-CN", "en"] as const;
export type PromptLocale = (typeof PROMPT_LOCALES)[number];

export interface TalkRuleDraft {
  start: string;
  end: string;
  value: string;
  chat: "" | "group" | "private";
}

/** The form's state: text as typed, per field. */
export interface SettingsDraft {
  bot: { nickname: string; aliases: string; personality: string; locale: string };
  /** Every chat.* value except the rules: numbers as typed text, switches as booleans. */
  chat: Record<string, string | boolean>;
  rules: TalkRuleDraft[];
  /** Per task: endpoint and model ("" endpoint: no route, the default). */
  tasks: Record<TaskName, { endpoint: string; model: string }>;
  /** Override text by "<locale>:<name>" ("" or absent: the default template). */
  prompts: Record<string, string>;
}

export function draftOf(s: LiveSettings): SettingsDraft {
  const chat: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(s.chat)) {
    if (typeof value === "boolean") chat[key] = value;
    else if (typeof value === "number") chat[key] = String(value);
  }
  const tasks = {} as SettingsDraft["tasks"];
  for (const task of TASKS) {
    const route = s.models.tasks[task];
    tasks[task] = { endpoint: route?.endpoint ?? "", model: route?.model ?? "" };
  }
  return {
    bot: {
      nickname: s.bot.nickname,
      aliases: s.bot.aliases.join(", "),
      personality: s.bot.personality,
      locale: s.bot.locale,
    },
    chat,
    rules: s.chat.talkValueRules.map((r) => ({
      start: r.start,
      end: r.end,
      value: String(r.value),
      chat: r.chat ?? "",
    })),
    tasks,
    prompts: promptDraftOf(s.prompts),
  };
}

/** Overrides keyed "<locale>:<name>"; a bare "<name>" (both locales) is shown under each locale. */
function promptDraftOf(prompts: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, text] of Object.entries(prompts))
    if (!key.includes(":")) for (const l of PROMPT_LOCALES) out[`${l}:${key}`] = text;
  for (const [key, text] of Object.entries(prompts)) if (key.includes(":")) out[key] = text;
  return out;
}

const asNumber = (text: string): number | string =>
  text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The change the draft makes to the loaded settings: only edited keys, or null when nothing differs. */
export function patchOf(loaded: LiveSettings, draft: SettingsDraft): Record<string, unknown> | null {
  const patch: Record<string, unknown> = {};
  const bot: Record<string, unknown> = {};
  const aliases = draft.bot.aliases
    .split(/[,，\n]/)
    .map((a) => a.trim())
    .filter(Boolean);
  if (draft.bot.nickname !== loaded.bot.nickname) bot.nickname = draft.bot.nickname;
  if (!sameJson(aliases, loaded.bot.aliases)) bot.aliases = aliases;
  if (draft.bot.personality !== loaded.bot.personality) bot.personality = draft.bot.personality;
  if (draft.bot.locale !== loaded.bot.locale) bot.locale = draft.bot.locale;
  if (Object.keys(bot).length) patch.bot = bot;

  const chat: Record<string, unknown> = {};
  const current = loaded.chat as Record<string, unknown>;
  for (const [key, value] of Object.entries(draft.chat)) {
    const typed = typeof value === "boolean" ? value : asNumber(value);
    if (!sameJson(typed, current[key])) chat[key] = typed;
  }
  const rules = draft.rules.map((r) => ({
    start: r.start,
    end: r.end,
    value: asNumber(r.value),
    ...(r.chat ? { chat: r.chat } : {}),
  }));
  if (!sameJson(rules, loaded.chat.talkValueRules)) chat.talkValueRules = rules;
  if (Object.keys(chat).length) patch.chat = chat;

  const tasks: Record<string, unknown> = {};
  for (const task of TASKS) {
    const route = loaded.models.tasks[task];
    const { endpoint, model } = draft.tasks[task];
    if (!endpoint && !model) {
      if (route) tasks[task] = null;
    } else if (endpoint !== route?.endpoint || model !== route.model) {
      tasks[task] = { endpoint, model, fallback: route?.fallback ?? [] };
    }
  }
  if (Object.keys(tasks).length) patch.models = { tasks };

  const prompts: Record<string, string | null> = {};
  const before = promptDraftOf(loaded.prompts);
  for (const key of new Set([...Object.keys(before), ...Object.keys(draft.prompts)])) {
    const text = draft.prompts[key] ?? "";
    if (text === (before[key] ?? "")) continue;
    prompts[key] = text === "" ? null : text;
  }
  // A bare "<name>" override edited under one locale becomes per-locale overrides; the bare one goes.
  for (const key of Object.keys(loaded.prompts)) {
    if (key.includes(":")) continue;
    if (PROMPT_LOCALES.some((l) => `${l}:${key}` in prompts)) {
      prompts[key] = null;
      for (const l of PROMPT_LOCALES) prompts[`${l}:${key}`] ??= draft.prompts[`${l}:${key}`] || null;
    }
  }
  if (Object.keys(prompts).length) patch.prompts = prompts;
  return Object.keys(patch).length ? patch : null;
}

/** A diff or conflict value as one line of text (rendered as text, never markup). */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}

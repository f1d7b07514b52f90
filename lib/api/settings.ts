// Wire shapes of the settings changed live (docs/interface.md#sources-and-settings):
// GET /api/settings and PATCH /api/settings. Each section is checked with the config file's own schema.
import { z } from "zod";
import { maisakaConfigSchema } from "../config/schema";

const { bot, chat, models, prompts } = maisakaConfigSchema.shape;

/** The parts of the config an operator changes live; model endpoints stay in the config file. */
export const liveSettingsSchema = z.object({
  bot,
  chat,
  models: z.object({ tasks: models.unwrap().shape.tasks }),
  prompts,
});
export type LiveSettings = z.infer<typeof liveSettingsSchema>;
export type LiveSection = keyof LiveSettings;
export const LIVE_SECTIONS = ["bot", "chat", "models", "prompts"] as const satisfies readonly LiveSection[];

/** One changed value: a dotted path ("chat.talkValue", "prompts.en:maisaka_chat"); null = absent. */
export const settingsDiffEntrySchema = z.object({ path: z.string(), before: z.unknown(), after: z.unknown() });
export type SettingsDiffEntry = z.infer<typeof settingsDiffEntrySchema>;

/** One applied change, as a conflicting editor is told about it. */
export const settingsChangeSchema = z.object({
  version: z.number().int(),
  at: z.number(),
  actor: z.string(),
  paths: z.array(z.string()),
  reason: z.string(),
});
export type SettingsChange = z.infer<typeof settingsChangeSchema>;

export const settingsResponseSchema = z.object({
  /** Send it back with a change: a change made meanwhile by someone else is a conflict (409). */
  version: z.number().int(),
  updatedAt: z.number().nullable(),
  settings: liveSettingsSchema,
  /** Endpoint names the task routes may use (the config file's, and "default" when set up). */
  endpoints: z.array(z.string()),
  /** Template names an override may name, as "<name>" or "<locale>:<name>". */
  promptNames: z.array(z.string()),
  /** The built-in templates per locale (what an override replaces). */
  defaults: z.object({ "zh-CN": z.record(z.string(), z.string()), en: z.record(z.string(), z.string()) }),
  /** The latest changes, newest last. */
  changes: z.array(settingsChangeSchema),
});
export type SettingsResponse = z.infer<typeof settingsResponseSchema>;

/** Longest prompt override accepted. */
export const MAX_PROMPT_CHARS = 20_000;

/**
 * A change: only the parts that change (a section's keys are laid over its current values, then the
 * whole section is checked), the version it was made on, and why. In `models.tasks` and `prompts`, null
 * removes a route or an override. `preview: true` (or `?dryRun=1`) answers the diff and changes nothing.
 */
export const settingsPatchSchema = z
  .object({
    version: z.number().int().min(0),
    reason: z.string().trim().min(1, "a reason is required").max(500),
    preview: z.boolean().optional(),
    bot: z.record(z.string(), z.unknown()).optional(),
    chat: z.record(z.string(), z.unknown()).optional(),
    models: z
      .object({ tasks: z.record(z.string(), z.unknown()) })
      .strict()
      .optional(),
    prompts: z.record(z.string(), z.string().max(MAX_PROMPT_CHARS).nullable()).optional(),
  })
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const settingsPatchQuerySchema = z.object({ dryRun: z.enum(["0", "1", "true", "false"]).optional() });

export const settingsPatchResponseSchema = z.object({
  /** False for a preview, or when nothing differs. */
  applied: z.boolean(),
  version: z.number().int(),
  diff: z.array(settingsDiffEntrySchema),
  settings: liveSettingsSchema,
});
export type SettingsPatchResponse = z.infer<typeof settingsPatchResponseSchema>;

/** 409: the settings changed since the version the editor started from. */
export const settingsConflictSchema = z.object({
  error: z.string(),
  conflict: z.object({ version: z.number().int(), changes: z.array(settingsChangeSchema) }),
});
export type SettingsConflict = z.infer<typeof settingsConflictSchema>;

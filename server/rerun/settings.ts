// A re-run's settings (lib/rerun/schemas.ts): laid over a copy of the current config at the fork point,
// each section checked with the config's own schema, prompt names with the engine's templates.
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { RerunSettings } from "../../lib/rerun/schemas";
import { promptNames } from "../engine";
import { RerunInputError } from "./errors";

const LOCALES = ["zh-CN", "en"];

/** The config with the settings laid over; throws RerunInputError naming the first bad field. */
export function withSettings(config: MaisakaConfig, settings: RerunSettings | undefined): MaisakaConfig {
  if (!settings) return config;
  const { shape } = maisakaConfigSchema;
  const next = { ...config };
  if (settings.bot) next.bot = checked("bot", shape.bot.safeParse({ ...config.bot, ...settings.bot }));
  if (settings.chat) next.chat = checked("chat", shape.chat.safeParse({ ...config.chat, ...settings.chat }));
  if (settings.prompts) {
    const prompts = { ...config.prompts };
    for (const [key, text] of Object.entries(settings.prompts)) {
      const [locale, name] = key.includes(":") ? key.split(":", 2) : [null, key];
      if (locale !== null && !LOCALES.includes(locale))
        throw new RerunInputError(`settings.prompts.${key}: unknown locale "${locale}" (zh-CN or en)`);
      if (!(promptNames as readonly string[]).includes(name))
        throw new RerunInputError(`settings.prompts.${key}: unknown prompt template "${name}"`);
      if (text === null) delete prompts[key];
      else prompts[key] = text;
    }
    next.prompts = prompts;
  }
  return next;
}

function checked<T>(
  section: string,
  result:
    { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } },
): T {
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new RerunInputError(`settings.${[section, ...issue.path.map(String)].join(".")}: ${issue.message}`);
}

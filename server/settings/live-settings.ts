// The settings operators change live (bot, chat, model per task, prompt overrides): the one owner of
// those parts of the config. A change is checked with the config file's own schemas, saved as a setting
// (laid over the config file's values at the next start), then applied by replacing the config's
// sections, never editing them, so a turn that pinned the old sections keeps them (the runtime's
// pinTurnSettings): a change takes effect from the next turn. Every change bumps a version; a change
// made on an older version is refused with what changed meanwhile (two operators editing at once).
import { z } from "zod";
import {
  LIVE_SECTIONS,
  liveSettingsSchema,
  settingsChangeSchema,
  type LiveSettings,
  type SettingsChange,
  type SettingsDiffEntry,
  type SettingsPatch,
} from "../../lib/api/settings";
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { Clock, EngineLogger } from "../engine";
import type { SettingStore } from "../stores/types";
import { settingsDiff } from "./diff";

export const LIVE_SETTINGS_KEY = "settings.live";
/** Changes remembered for conflict messages. */
const KEPT_CHANGES = 50;

const savedSchema = z.object({
  version: z.number().int().min(0),
  updatedAt: z.number().nullable(),
  settings: liveSettingsSchema.partial(),
  changes: z.array(settingsChangeSchema),
});
type Saved = z.infer<typeof savedSchema>;

export interface SettingsProblem {
  path: string;
  message: string;
}

/** The change does not pass the config's schemas (or names an unknown template or endpoint). */
export class SettingsInvalid extends Error {
  override name = "SettingsInvalid";
  constructor(readonly problems: SettingsProblem[]) {
    super("invalid settings");
  }
}

/** The change was made on an older version than the current one. */
export class SettingsConflictError extends Error {
  override name = "SettingsConflictError";
  constructor(
    readonly version: number,
    readonly changes: SettingsChange[],
  ) {
    const who = [...new Set(changes.map((c) => c.actor))].join(", ") || "someone";
    const paths = [...new Set(changes.flatMap((c) => c.paths))];
    super(`the settings were changed meanwhile by ${who} (${paths.join(", ") || "no values"}): reload and edit again`);
  }
}

export interface SettingsOutcome {
  applied: boolean;
  version: number;
  diff: SettingsDiffEntry[];
  before: LiveSettings;
  after: LiveSettings;
}

export interface LiveSettingsOptions {
  /** The config object the engine and every other part read (its sections are replaced on a change). */
  config: MaisakaConfig;
  store: SettingStore;
  clock: Clock;
  logger: EngineLogger;
  /** Template names an override may name. */
  promptNames: readonly string[];
  /** Points the model client at changed task routes; throws, changing nothing, on an unknown endpoint. */
  reroute(tasks: LiveSettings["models"]["tasks"]): void;
}

const LOCALES = ["zh-CN", "en"];

export class LiveSettingsService {
  private version = 0;
  private updatedAt: number | null = null;
  private changes: SettingsChange[] = [];
  /** The sections changed live (saved whole, so a later config file edit of them is overridden). */
  private overridden: Partial<LiveSettings> = {};
  /** Changes one at a time: a second one is checked against what the first left. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The saved value as last read or written: a change is saved only if it is still the stored one. */
  private stored: unknown = undefined;

  constructor(private readonly opts: LiveSettingsOptions) {}

  get currentVersion(): number {
    return this.version;
  }

  get lastUpdatedAt(): number | null {
    return this.updatedAt;
  }

  get recentChanges(): SettingsChange[] {
    return [...this.changes];
  }

  current(): LiveSettings {
    const { bot, chat, models, prompts } = this.opts.config;
    return { bot, chat, models: { tasks: models.tasks }, prompts };
  }

  /**
   * Lays the saved settings over the config file's values (a saved section that no longer parses is
   * ignored). Called again when another node changed them: the saved value is the truth.
   */
  async load(): Promise<void> {
    const raw = await this.opts.store.get(LIVE_SETTINGS_KEY);
    this.stored = raw;
    if (raw === undefined) return;
    const saved = savedSchema.safeParse(raw);
    if (!saved.success) {
      this.opts.logger.warn(`[settings] the saved live settings are not valid and are ignored: ${saved.error.message}`);
      return;
    }
    this.version = saved.data.version;
    this.updatedAt = saved.data.updatedAt;
    this.changes = saved.data.changes;
    const candidate = { ...this.current(), ...saved.data.settings };
    const problems = this.problemsOf(candidate);
    if (problems.length) {
      this.opts.logger.warn(
        `[settings] the saved live settings no longer fit the config and are ignored: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
      );
      return;
    }
    this.opts.reroute(candidate.models.tasks);
    this.overridden = saved.data.settings;
    this.apply(candidate);
  }

  /** Reads the saved settings again, after the changes already queued (another node changed them). */
  reload(): Promise<void> {
    const run = this.queue.then(() => this.load());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Checks, previews or applies a change; resolves with the diff and the settings before and after. */
  change(patch: SettingsPatch, actor: string, preview: boolean): Promise<SettingsOutcome> {
    const run = this.queue.then(() => this.changeNow(patch, actor, preview));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async changeNow(patch: SettingsPatch, actor: string, preview: boolean): Promise<SettingsOutcome> {
    if (patch.version !== this.version) {
      throw new SettingsConflictError(
        this.version,
        this.changes.filter((c) => c.version > patch.version),
      );
    }
    const before = this.current();
    const { candidate, touched } = merged(before, patch);
    const problems = this.problemsOf(candidate);
    if (problems.length) throw new SettingsInvalid(problems);
    const after = liveSettingsSchema.parse(candidate);
    const diff = settingsDiff(before, after);
    if (preview || diff.length === 0) return { applied: false, version: this.version, diff, before, after };

    // The model client is checked (and pointed) first: a route it cannot follow is refused unsaved.
    try {
      this.opts.reroute(after.models.tasks);
    } catch (error) {
      throw new SettingsInvalid([
        { path: "models.tasks", message: error instanceof Error ? error.message : String(error) },
      ]);
    }
    const at = this.opts.clock.now();
    const change: SettingsChange = {
      version: this.version + 1,
      at,
      actor,
      paths: diff.map((d) => d.path),
      reason: patch.reason,
    };
    const overridden = { ...this.overridden };
    for (const section of touched) Object.assign(overridden, { [section]: after[section] });
    const saved: Saved = {
      version: change.version,
      updatedAt: at,
      settings: overridden,
      changes: [...this.changes, change].slice(-KEPT_CHANGES),
    };
    let written: boolean;
    try {
      // Saved before it applies: a change that could not be stored is not applied (it would vanish at restart).
      // Compare-and-set: another node may have saved a change since this one read the settings.
      written = await this.opts.store.compareAndSet(LIVE_SETTINGS_KEY, this.stored, saved, at);
    } catch (error) {
      this.opts.reroute(before.models.tasks);
      throw error;
    }
    if (!written) {
      this.opts.reroute(before.models.tasks);
      // Reads what the other node saved, then refuses like a change made on an old version here.
      await this.load();
      throw new SettingsConflictError(
        this.version,
        this.changes.filter((c) => c.version > patch.version),
      );
    }
    this.stored = saved;
    this.version = saved.version;
    this.updatedAt = at;
    this.changes = saved.changes;
    this.overridden = overridden;
    this.apply(after);
    return { applied: true, version: this.version, diff, before, after };
  }

  /** The config file's schema per section, plus what it cannot know: template names. */
  private problemsOf(candidate: LiveSettings): SettingsProblem[] {
    const problems: SettingsProblem[] = [];
    const add = (section: string, error: z.ZodError): void => {
      for (const issue of error.issues) {
        problems.push({ path: [section, ...issue.path.map(String)].join("."), message: issue.message });
      }
    };
    const { shape } = maisakaConfigSchema;
    const bot = shape.bot.safeParse(candidate.bot);
    if (!bot.success) add("bot", bot.error);
    const chat = shape.chat.safeParse(candidate.chat);
    if (!chat.success) add("chat", chat.error);
    // The endpoint check needs the file's endpoints: the whole models section is checked.
    const models = shape.models.safeParse({ ...this.opts.config.models, tasks: candidate.models.tasks });
    if (!models.success) add("models", models.error);
    const prompts = shape.prompts.safeParse(candidate.prompts);
    if (!prompts.success) add("prompts", prompts.error);
    else {
      for (const key of Object.keys(prompts.data)) {
        const [locale, name] = key.includes(":") ? key.split(":", 2) : [null, key];
        if (locale !== null && !LOCALES.includes(locale)) {
          problems.push({ path: `prompts.${key}`, message: `unknown locale "${locale}" (zh-CN or en)` });
        } else if (!this.opts.promptNames.includes(name)) {
          problems.push({ path: `prompts.${key}`, message: `unknown prompt template "${name}"` });
        }
      }
    }
    return problems;
  }

  private apply(settings: LiveSettings): void {
    const config = this.opts.config;
    // New objects, never edits: a running turn holds the old ones (see the header).
    config.bot = settings.bot;
    config.chat = settings.chat;
    config.models = { ...config.models, tasks: settings.models.tasks };
    config.prompts = settings.prompts;
  }
}

/** The patch laid over the current settings; `touched`: the sections it names. */
function merged(
  current: LiveSettings,
  patch: SettingsPatch,
): { candidate: LiveSettings; touched: (typeof LIVE_SECTIONS)[number][] } {
  const touched = LIVE_SECTIONS.filter((s) => patch[s] !== undefined);
  const tasks: Record<string, unknown> = { ...current.models.tasks };
  for (const [task, route] of Object.entries(patch.models?.tasks ?? {})) {
    if (route === null) delete tasks[task];
    else tasks[task] = route;
  }
  const prompts: Record<string, string> = { ...current.prompts };
  for (const [key, text] of Object.entries(patch.prompts ?? {})) {
    if (text === null) delete prompts[key];
    else prompts[key] = text;
  }
  // Unchecked here: problemsOf checks every section before anything uses them.
  const candidate = {
    bot: { ...current.bot, ...patch.bot },
    chat: { ...current.chat, ...patch.chat },
    models: { tasks },
    prompts,
  };
  return { candidate, touched };
}

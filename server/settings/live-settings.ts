// The settings operators change live (bot, chat, model per task, prompt overrides): the one owner of
// those parts of the config. A change is checked with the config file's own schemas, saved as the
// values the operators changed (laid over the config file's at every start, so a section or value they
// never touched follows the file), then applied by replacing the config's sections, never editing them,
// so a turn that pinned the old sections keeps them (the runtime's pinTurnSettings): a change takes
// effect from the next turn. Every change bumps a version; a change made on an older version is
// refused with what changed meanwhile (two operators editing at once).
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import {
  LIVE_SECTIONS,
  liveSettingsSchema,
  settingsChangeSchema,
  settingsPatchSchema,
  type LiveSettings,
  type SettingsChange,
  type SettingsDiffEntry,
  type SettingsPatch,
} from "../../lib/api/settings";
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { Clock } from "../kernel/clock";
import type { Logger } from "../kernel/logger";
import type { SettingStore } from "../stores/settings";
import { settingsDiff } from "./diff";

export const LIVE_SETTINGS_KEY = "settings.live";
/** Changes remembered for conflict messages. */
const KEPT_CHANGES = 50;

/** What operators changed, in a change's own shape: keys laid over the file's; null removes a route or an override. */
const overridesSchema = settingsPatchSchema.pick({ bot: true, chat: true, models: true, prompts: true });
type Overrides = z.infer<typeof overridesSchema>;

const plainRecord = z.record(z.string(), z.unknown());

const savedSchema = z.object({
  version: z.number().int().min(0),
  updatedAt: z.number().nullable(),
  overrides: overridesSchema.optional(),
  /**
   * What versions before the overrides saved: every section a change touched, whole (and, through a
   * defaults bug, sometimes all four). Read as plain values and turned into overrides (legacyOverrides).
   */
  settings: z
    .object({
      bot: plainRecord.optional(),
      chat: plainRecord.optional(),
      models: z.object({ tasks: plainRecord.optional() }).optional(),
      prompts: plainRecord.optional(),
    })
    .optional(),
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
  logger: Logger;
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
  /** The config file's values, before anything changed live: what the overrides are laid over. */
  private readonly file: LiveSettings;
  /** The values changed live (saved; the file's value rules for every other one). */
  private overrides: Overrides = {};
  /** Changes one at a time: a second one is checked against what the first left. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The saved value as last read or written: a change is saved only if it is still the stored one. */
  private stored: unknown = undefined;

  constructor(private readonly opts: LiveSettingsOptions) {
    this.file = this.current();
  }

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
   * Lays the saved changes over the config file's values; a section whose changes no longer fit it (an
   * endpoint the file dropped) keeps the file's, with a warning. Called again when another node changed
   * them: the saved value is the truth.
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
    const wanted = saved.data.overrides ?? legacyOverrides(saved.data, this.file);
    const { settings, overrides, problems } = this.laidOver(wanted);
    if (problems.length) {
      this.opts.logger.warn(
        `[settings] saved live changes no longer fit the config and are ignored (the config file's values apply): ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
      );
    }
    this.opts.reroute(settings.models.tasks);
    this.overrides = overrides;
    this.apply(settings);
  }

  /** The file's values with `wanted` laid over them, less the sections whose changes do not pass. */
  private laidOver(wanted: Overrides): { settings: LiveSettings; overrides: Overrides; problems: SettingsProblem[] } {
    const problems = this.problemsOf(merged(this.file, wanted));
    const failing = new Set(problems.map((p) => p.path.split(".")[0]));
    const overrides: Overrides = {};
    for (const section of LIVE_SECTIONS)
      if (!failing.has(section)) setOverrides(overrides, section, overridesIn(wanted, section) ?? {});
    return { settings: liveSettingsSchema.parse(merged(this.file, overrides)), overrides, problems };
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
    const candidate = merged(before, patch);
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
    const overrides = withChange(this.overrides, patch, after, this.file);
    const saved: Saved = {
      version: change.version,
      updatedAt: at,
      overrides,
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
    this.overrides = overrides;
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

/** The patch (or the saved overrides, the same shape) laid over `current`. */
function merged(current: LiveSettings, patch: Overrides): LiveSettings {
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
  return {
    bot: { ...current.bot, ...patch.bot },
    chat: { ...current.chat, ...patch.chat },
    models: { tasks },
    prompts,
  };
}

type Section = (typeof LIVE_SECTIONS)[number];
type Entries = Record<string, unknown>;
/** Overrides, or the whole sections earlier versions saved: per section its values by key. */
type SectionValues = { bot?: Entries; chat?: Entries; models?: { tasks?: Entries }; prompts?: Entries };

/** A section's values by key (a task's route, a prompt's text); absent keys are absent. */
function entriesOf(settings: LiveSettings, section: Section): Entries {
  return section === "models" ? settings.models.tasks : settings[section];
}

/** A section's saved values by key (models: the task routes), or undefined. */
function overridesIn(values: SectionValues, section: Section): Entries | undefined {
  return section === "models" ? values.models?.tasks : values[section];
}

/** Sets a section's overrides to `entries` (none when it is empty). */
function setOverrides(overrides: Overrides, section: Section, entries: Entries): void {
  if (Object.keys(entries).length)
    Object.assign(overrides, { [section]: section === "models" ? { tasks: entries } : entries });
}

/**
 * The overrides after a change: each value the patch names is kept as changed, or dropped when it is
 * the file's again (the file's value then rules, later edits of the file included); the others stay.
 */
function withChange(overrides: Overrides, patch: Overrides, after: LiveSettings, file: LiveSettings): Overrides {
  const out: Overrides = {};
  for (const section of LIVE_SECTIONS) {
    const kept: Entries = { ...overridesIn(overrides, section) };
    const now = entriesOf(after, section);
    const before = entriesOf(file, section);
    for (const key of Object.keys(overridesIn(patch, section) ?? {})) {
      if (isDeepStrictEqual(now[key], before[key])) delete kept[key];
      else kept[key] = now[key] ?? null;
    }
    setOverrides(out, section, kept);
  }
  return out;
}

/**
 * Saved whole sections (versions before the overrides) turned into overrides. A section's value was
 * changed by an operator when a kept change names it; those values are kept. When the kept changes no
 * longer reach back to the first (older ones were dropped), a value is also kept when it differs both
 * from the file's and from the default: values equal to the default cannot be told apart from the ones
 * the old loader filled whole sections with, and values equal to the file's change nothing.
 */
function legacyOverrides(saved: Saved, file: LiveSettings): Overrides {
  const named = new Set(saved.changes.flatMap((c) => c.paths.map(changedKey)));
  const complete = saved.version === 0 || saved.changes.some((c) => c.version === 1);
  const { bot, chat, models, prompts } = maisakaConfigSchema.parse({});
  const defaults: LiveSettings = { bot, chat, models: { tasks: models.tasks }, prompts };
  const legacy = saved.settings ?? {};
  const patch: Overrides = {};
  for (const section of LIVE_SECTIONS) {
    const values = overridesIn(legacy, section);
    if (!values) continue;
    const inFile = entriesOf(file, section);
    // bot and chat sections are whole (a key the schema no longer has is left out); a task route or a
    // prompt override a change named and the section lacks was removed.
    const keys =
      section === "bot" || section === "chat"
        ? Object.keys(values).filter((key) => key in inFile)
        : new Set([
            ...Object.keys(values),
            ...[...named].filter((k) => k.startsWith(`${section}.`)).map((k) => k.slice(section.length + 1)),
          ]);
    const byDefault = entriesOf(defaults, section);
    const kept: Entries = {};
    for (const key of keys) {
      const value = values[key] ?? null;
      const differs = !isDeepStrictEqual(value, inFile[key] ?? null);
      const ownChoice = !complete && !isDeepStrictEqual(value, byDefault[key] ?? null);
      if (differs && (named.has(`${section}.${key}`) || ownChoice)) kept[key] = value;
    }
    setOverrides(patch, section, kept);
  }
  return patch;
}

/** The overridable value a change's diff path lies in: "chat.talkValue", "models.planner", "prompts.en:x". */
function changedKey(path: string): string {
  const [section, ...rest] = path.split(".");
  if (section === "models") return `models.${rest[1] ?? ""}`;
  if (section === "prompts") return `prompts.${rest.join(".")}`;
  return `${section}.${rest[0] ?? ""}`;
}

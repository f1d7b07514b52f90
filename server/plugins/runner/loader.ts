// Imports each plugin the Host compiled (host/runner-build.ts) and instantiates its default export
// with a PluginContext. A plugin that fails is reported and skipped; the others load.
import { pathToFileURL } from "node:url";
import type { HookDeclaration, PluginSummary, ToolDeclaration } from "../../../lib/plugins/components";
import type { PlannedPlugin, RunnerPlan } from "../../../lib/plugins/plan";
import type { LoadFailure, PluginGrant } from "../../../lib/plugins/protocol";
import { collectDeclarations } from "../sdk/declarations";
import type { PluginContext, PluginLogger } from "../sdk/types";
import { resolvePluginConfig } from "./plugin-config";

export interface LoadedPlugin {
  summary: PluginSummary;
  instance: object;
  tools: ToolDeclaration[];
  hooks: HookDeclaration[];
}

export interface LoadOutcome {
  loaded: LoadedPlugin[];
  failed: LoadFailure[];
}

export interface LoadOptions {
  grants: Readonly<Record<string, PluginGrant>>;
  loadTimeoutMs: number;
  logger(pluginId: string): PluginLogger;
}

type PluginClass = new (ctx: PluginContext) => object;

/** Imports the plan's compiled plugins one by one; a plugin that throws is reported and skipped. */
export async function loadPlugins(plan: RunnerPlan, opts: LoadOptions): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { loaded: [], failed: [...plan.failed] };
  for (const planned of plan.plugins) {
    try {
      outcome.loaded.push(await loadOne(planned, opts));
    } catch (error) {
      outcome.failed.push({ pluginId: planned.manifest.id, folder: planned.folder, error: describe(error) });
    }
  }
  return outcome;
}

async function loadOne(
  { folder, manifest, module: compiled }: PlannedPlugin,
  opts: LoadOptions,
): Promise<LoadedPlugin> {
  const grant = opts.grants[manifest.id];
  const config = resolvePluginConfig(manifest.configSchema, grant?.config ?? {});
  const module = await withTimeout(
    import(pathToFileURL(compiled).href) as Promise<{ default?: unknown }>,
    opts.loadTimeoutMs,
    "loading",
  );
  if (typeof module.default !== "function") throw new Error(`${manifest.entry} must default-export the plugin class`);
  const PluginType = module.default as PluginClass; // a function default export is the class the SDK documents
  const ctx: PluginContext = {
    pluginId: manifest.id,
    pluginDir: folder,
    config: Object.freeze(config),
    env: Object.freeze({ ...(grant?.env ?? {}) }),
    log: opts.logger(manifest.id),
  };
  const instance = new PluginType(ctx);
  const declarations = collectDeclarations(instance);
  return {
    summary: {
      id: manifest.id,
      name: manifest.name,
      version: manifest.version,
      description: manifest.description ?? "",
      folder,
    },
    instance,
    tools: declarations.flatMap((d) => (d.kind === "tool" ? [d.tool] : [])),
    hooks: declarations.flatMap((d) => (d.kind === "hook" ? [d.hook] : [])),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

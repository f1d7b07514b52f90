// Finds the plugin folders, reads each manifest, imports the entry and instantiates its default
// export with a PluginContext. A plugin that fails at any step is reported and skipped; the others load.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { HookDeclaration, PluginSummary, ToolDeclaration } from "../../../lib/plugins/components";
import { PLUGIN_MANIFEST_FILE, pluginManifestSchema, type PluginManifest } from "../../../lib/plugins/manifest";
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

/** A folder holding plugin.json is one plugin; any other folder is scanned for plugin subfolders. */
function discoverPluginFolders(dirs: readonly string[]): { folders: string[]; missing: string[] } {
  const folders: string[] = [];
  const missing: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) {
      missing.push(dir);
      continue;
    }
    if (existsSync(join(dir, PLUGIN_MANIFEST_FILE))) {
      folders.push(dir);
      continue;
    }
    const children = readdirSync(dir)
      .filter((name) => !name.startsWith(".") && name !== "node_modules")
      .sort()
      .map((name) => join(dir, name));
    folders.push(
      ...children.filter((child) => statSync(child).isDirectory() && existsSync(join(child, PLUGIN_MANIFEST_FILE))),
    );
  }
  return { folders, missing };
}

export async function loadPlugins(dirs: readonly string[], opts: LoadOptions): Promise<LoadOutcome> {
  const { folders, missing } = discoverPluginFolders(dirs);
  const outcome: LoadOutcome = {
    loaded: [],
    failed: missing.map((dir) => ({ pluginId: basename(dir), folder: dir, error: "plugin folder not found" })),
  };
  const ids = new Map<string, string>();
  for (const folder of folders) {
    let manifest: PluginManifest | null = null;
    try {
      manifest = readManifest(folder);
      const earlier = ids.get(manifest.id);
      if (earlier) throw new Error(`duplicate plugin id "${manifest.id}" (already loaded from ${earlier})`);
      ids.set(manifest.id, folder);
      outcome.loaded.push(await loadOne(folder, manifest, opts));
    } catch (error) {
      outcome.failed.push({ pluginId: manifest?.id ?? basename(folder), folder, error: describe(error) });
    }
  }
  return outcome;
}

function readManifest(folder: string): PluginManifest {
  const path = join(folder, PLUGIN_MANIFEST_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${PLUGIN_MANIFEST_FILE} is not valid JSON: ${describe(error)}`, { cause: error });
  }
  const parsed = pluginManifestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new Error(`${PLUGIN_MANIFEST_FILE}: ${problems.join("; ")}`);
}

async function loadOne(folder: string, manifest: PluginManifest, opts: LoadOptions): Promise<LoadedPlugin> {
  const grant = opts.grants[manifest.id];
  const config = resolvePluginConfig(manifest.configSchema, grant?.config ?? {});
  const entry = resolve(folder, manifest.entry);
  const module = await withTimeout(
    import(pathToFileURL(entry).href) as Promise<{ default?: unknown }>,
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

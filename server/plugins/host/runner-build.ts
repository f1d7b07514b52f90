// Prepares what the Runner loads, in the Host: the Runner runs under Node's permission model with
// no child processes and no worker threads, so it cannot run tsx (esbuild is a child process).
// Instead the Host finds the plugin folders, reads their manifests and compiles each entry (and the
// Runner itself) with esbuild into one self-contained ES module in a build folder; the Runner reads
// only that folder, its plugin folders and node_modules.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions } from "esbuild";
import { PLUGIN_MANIFEST_FILE, pluginManifestSchema, type PluginManifest } from "../../../lib/plugins/manifest";
import type { PlannedPlugin, RunnerPlan } from "../../../lib/plugins/plan";

const RUNNER_SOURCE = fileURLToPath(new URL("../runner/main.ts", import.meta.url));
const RUNNER_BUNDLE = "runner.mjs";
export const RUNNER_PLAN = "plan.json";

const COMMON: BuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  logLevel: "silent",
  // Bundled CommonJS packages may call require(): give the ES module one.
  banner: {
    js: 'import { createRequire as __maisakaRequire } from "node:module"; const require = __maisakaRequire(import.meta.url);',
  },
};

/** Compiles the Runner's own code into <outDir>/runner.mjs (once per Host). */
export async function buildRunner(outDir: string): Promise<string> {
  const outfile = join(outDir, RUNNER_BUNDLE);
  await build({ ...COMMON, entryPoints: [RUNNER_SOURCE], outfile });
  return outfile;
}

/** Finds and compiles the plugins of `dirs` into `outDir`, writes the plan there and returns it. */
export async function buildPlugins(dirs: readonly string[], outDir: string): Promise<RunnerPlan> {
  const { folders, missing } = discoverPluginFolders(dirs);
  const plan: RunnerPlan = {
    plugins: [],
    failed: missing.map((dir) => ({ pluginId: basename(dir), folder: dir, error: "plugin folder not found" })),
  };
  const ids = new Map<string, string>();
  const found: (PlannedPlugin & { entry: string })[] = [];
  for (const [index, folder] of folders.entries()) {
    let manifest: PluginManifest | null = null;
    try {
      manifest = readManifest(folder);
      const earlier = ids.get(manifest.id);
      if (earlier) throw new Error(`duplicate plugin id "${manifest.id}" (already loaded from ${earlier})`);
      ids.set(manifest.id, folder);
      const entry = resolve(folder, manifest.entry);
      if (!existsSync(entry)) throw new Error(`${manifest.entry} not found`);
      found.push({ folder, manifest, entry, module: join(outDir, `plugin-${index}-${manifest.id}.mjs`) });
    } catch (error) {
      plan.failed.push({ pluginId: manifest?.id ?? basename(folder), folder, error: describe(error) });
    }
  }
  // One build for all (they share the SDK's parse); only when it fails, one by one to name the culprit.
  const all = found.length
    ? await compile(found).then(
        () => null,
        (error: unknown) => error,
      )
    : null;
  for (const plugin of found) {
    const failure =
      all === null
        ? null
        : await compile([plugin]).then(
            () => null,
            (error: unknown) => error,
          );
    const { folder, manifest, module } = plugin;
    if (failure === null) plan.plugins.push({ folder, manifest, module });
    else
      plan.failed.push({
        pluginId: manifest.id,
        folder,
        error: `compiling ${manifest.entry} failed: ${esbuildProblems(failure)}`,
      });
  }
  writeFileSync(join(outDir, RUNNER_PLAN), JSON.stringify(plan));
  return plan;
}

async function compile(plugins: readonly { entry: string; module: string }[]): Promise<void> {
  const outdir = dirname(plugins[0].module);
  await build({
    ...COMMON,
    entryPoints: plugins.map((p) => ({ in: p.entry, out: basename(p.module, ".mjs") })),
    outdir,
    outExtension: { ".js": ".mjs" },
  });
}

/** esbuild's failure lists each problem with its file and line. */
function esbuildProblems(error: unknown): string {
  const errors = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors;
  const detail = errors?.map((e) => (e.location ? `${e.location.file}:${e.location.line}: ${e.text}` : e.text));
  return detail?.join("; ") ?? describe(error);
}

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

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

// Temporary plugin folders written by the tests, and a PluginRuntime with a real Runner over them.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolExecutionResult, ToolInvocation } from "../../lib/tools/schemas";
import { parseConfig } from "../../server/config/load";
import { HookRegistry } from "../../server/engine/hooks";
import type { SupervisorTiming } from "../../server/plugins/host/supervisor";
import { PluginRuntime } from "../../server/plugins/runtime";

/** Plugins outside the project import the SDK by its absolute path. */
export const SDK_PATH = fileURLToPath(new URL("../../server/plugins/sdk/index.ts", import.meta.url));

export interface PluginFiles {
  /** plugin.json; `id`, `name`, `version` and `entry` are filled in unless given. */
  manifest?: Record<string, unknown>;
  /** The entry module's source (index.ts). */
  source: string;
  /** Raw plugin.json text, for broken manifests. */
  rawManifest?: string;
}

export class PluginFolder {
  readonly root = mkdtempSync(join(tmpdir(), "maisaka-plugins-test-"));

  constructor() {
    // ESM like the project: plugin modules outside it would otherwise be compiled as CommonJS.
    writeFileSync(join(this.root, "package.json"), JSON.stringify({ type: "module" }));
  }

  add(folder: string, files: PluginFiles): this {
    const dir = join(this.root, folder);
    mkdirSync(dir, { recursive: true });
    const manifest = { id: folder, name: folder, version: "1.0.0", entry: "index.ts", ...files.manifest };
    writeFileSync(join(dir, "plugin.json"), files.rawManifest ?? JSON.stringify(manifest, null, 2));
    writeFileSync(
      join(dir, "index.ts"),
      `import { Tool, Action, Hook, Plugin } from ${JSON.stringify(SDK_PATH)};\n${files.source}`,
    );
    return this;
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface StartedRuntime {
  runtime: PluginRuntime;
  hooks: HookRegistry;
  logs: string[];
  invoke(
    toolName: string,
    args?: Record<string, unknown>,
    extra?: Partial<ToolInvocation>,
  ): Promise<ToolExecutionResult>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  dirs: string[];
  plugins?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  timing?: Partial<SupervisorTiming>;
  hooks?: HookRegistry;
}

/** Quick restarts and health checks: the crash and hang tests stay short. */
export const FAST_TIMING: Partial<SupervisorTiming> = {
  healthIntervalMs: 250,
  healthTimeoutMs: 1_000,
  backoffInitialMs: 50,
  backoffMaxMs: 200,
  shutdownGraceMs: 1_000,
};

export async function startRuntime(opts: RuntimeOptions): Promise<StartedRuntime> {
  const logs: string[] = [];
  const hooks = opts.hooks ?? new HookRegistry({ warn: (m) => void logs.push(m) });
  const config = parseConfig({ plugins: { dirs: opts.dirs, ...opts.plugins } }, "test");
  const runtime = new PluginRuntime({
    config: config.plugins,
    hooks,
    logger: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m) },
    env: opts.env ?? {},
    timing: { ...FAST_TIMING, ...opts.timing },
  });
  await runtime.start();
  let calls = 0;
  return {
    runtime,
    hooks,
    logs,
    invoke: (toolName, args = {}, extra = {}) =>
      runtime.provider.invoke({
        toolName,
        arguments: args,
        callId: `call-${++calls}`,
        sessionId: "s1",
        streamId: "s1",
        reasoning: "",
        metadata: {},
        ...extra,
      }),
    close: () => runtime.close(),
  };
}

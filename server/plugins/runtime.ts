// The Host side of plugins in one object (docs/engine-rules.md#plugin-tools): the Runner supervisor, the component
// registry and its read-only view, the PluginToolProvider and the hook bridge. The composition root
// creates it with the engine; the server starts it (no process runs before start()).
import { resolve } from "node:path";
import type { ProviderStatus } from "../../lib/api/schemas";
import type { MaisakaConfig } from "../../lib/config/schema";
import type { LoadFailure, PluginGrant } from "../../lib/plugins/protocol";
import type { PluginState } from "../../lib/plugins/status";
import type { HookRegistry } from "../engine";
import type { ChildIsolation } from "../sandbox/child-isolation";
import { createComponentQueryView, type ComponentQueryView } from "./host/component-query";
import { ComponentRegistry } from "./host/component-registry";
import { PluginHookBridge } from "./host/hook-bridge";
import { grantedEnv, type HostEnv } from "./host/runner-env";
import { pluginProviderStatuses, pluginStates } from "./host/status";
import {
  RunnerSupervisor,
  type RunnerListener,
  type RunnerSnapshot,
  type SupervisorLogger,
  type SupervisorTiming,
} from "./host/supervisor";
import { PluginToolProvider } from "./host/tool-provider";

export { PLUGIN_PROVIDER_NAME } from "./host/tool-provider";

export interface PluginRuntimeOptions {
  config: MaisakaConfig["plugins"];
  hooks: HookRegistry;
  logger: SupervisorLogger;
  /** The Host's environment: grants are read from it; the Runner never sees it whole. */
  env?: HostEnv;
  /** Where relative plugin folders are resolved (default: the working directory). */
  cwd?: string;
  /** Who the Runner runs as (default: from `env`, see sandbox/child-isolation.ts). */
  isolation?: ChildIsolation;
  timing?: Partial<SupervisorTiming>;
}

export class PluginRuntime {
  readonly provider: PluginToolProvider;
  readonly supervisor: RunnerSupervisor;
  private readonly registry: ComponentRegistry;
  private readonly view: ComponentQueryView;
  private readonly bridge: PluginHookBridge;
  private readonly grantProblems: string[];
  private states: PluginState[] = [];

  constructor(private readonly opts: PluginRuntimeOptions) {
    const env = opts.env ?? process.env;
    const { config } = opts;
    const settings = config.config ?? {};
    const granted = grantedEnv(env, config.env ?? {});
    this.grantProblems = granted.problems;
    const grants: Record<string, PluginGrant> = {};
    for (const id of new Set([...Object.keys(settings), ...Object.keys(granted.env)])) {
      grants[id] = { config: settings[id] ?? {}, env: granted.env[id] ?? {} };
    }
    this.registry = new ComponentRegistry((message) => opts.logger.warn(message));
    this.view = createComponentQueryView(this.registry);
    const cwd = opts.cwd ?? process.cwd();
    this.supervisor = new RunnerSupervisor({
      pluginDirs: config.dirs.map((dir) => resolve(cwd, dir)),
      grants,
      hostEnv: env,
      listener: this.listener(),
      logger: opts.logger,
      isolation: opts.isolation,
      timing: opts.timing,
    });
    // Absent timeouts fall back to the constructors' defaults (30 s per tool call, 6 s per hook).
    this.provider = new PluginToolProvider(this.view, this.supervisor, config.toolTimeoutMs);
    this.bridge = new PluginHookBridge(opts.hooks, this.supervisor, config.hookTimeoutMs);
  }

  /** Starts the Runner; resolves once it is ready or its first start failed (it keeps retrying). */
  async start(): Promise<void> {
    for (const problem of this.grantProblems) this.opts.logger.warn(`[plugins] ${problem}`);
    await this.supervisor.start();
  }

  /** For GET /api/providers. */
  statuses(): ProviderStatus[] {
    return pluginProviderStatuses(this.supervisor.snapshot(), this.states);
  }

  /** The Runner process's phase, pid, restarts and last error. */
  runner(): RunnerSnapshot {
    return this.supervisor.snapshot();
  }

  /** Restarts the Runner, which loads the plugins again (edits picked up); see RunnerSupervisor.reload. */
  reload(): Promise<void> {
    return this.supervisor.reload();
  }

  /** The plugins of the last ready Runner, loaded and failed. */
  plugins(): readonly PluginState[] {
    return this.states;
  }

  /** Shutdown began (before the runtimes stop): the Runner is not restarted any more. */
  beginShutdown(): void {
    this.supervisor.beginShutdown();
  }

  async close(): Promise<void> {
    await this.supervisor.close();
  }

  private listener(): RunnerListener {
    return {
      onRegister: (payload) => this.registry.register(payload),
      onReady: ({ failed }) => this.onReady(failed),
      onDown: () => {
        this.registry.clear();
        this.bridge.clear();
      },
    };
  }

  private onReady(failed: readonly LoadFailure[]): void {
    const records = this.registry.pluginRecords();
    this.registry.publish();
    this.bridge.sync(records.map((r) => ({ pluginId: r.summary.id, hooks: r.hooks })));
    this.states = pluginStates(records, failed);
    for (const f of failed) this.opts.logger.warn(`[plugins] plugin ${f.pluginId} failed to load: ${f.error}`);
    const names = records.map((r) => r.summary.id).join(", ") || "none";
    this.opts.logger.info(`[plugins] runner ready: loaded ${names}; ${failed.length} failed`);
  }
}

// The plugin side of GET /api/providers: the Runner as one entry (`plugin_runtime`) and each plugin
// as its own entry named by its id, the providerName its tools carry.
import type { ProviderStatus } from "../../../lib/api/schemas";
import type { LoadFailure } from "../../../lib/plugins/protocol";
import type { PluginState, RunnerState } from "../../../lib/plugins/status";
import type { PluginRecord } from "./component-registry";
import type { RunnerPhase, RunnerSnapshot } from "./supervisor";
import { PLUGIN_PROVIDER_NAME } from "./tool-provider";

const stateOfPhase: Record<RunnerPhase, ProviderStatus["state"]> = {
  idle: "disabled",
  starting: "connecting",
  ready: "ready",
  backoff: "failed",
  closed: "disabled",
};

export function pluginStates(records: readonly PluginRecord[], failures: readonly LoadFailure[]): PluginState[] {
  return [
    ...records.map((r): PluginState => ({
      id: r.summary.id,
      name: r.summary.name,
      version: r.summary.version,
      folder: r.summary.folder,
      state: "loaded",
      error: null,
      tools: [...r.tools],
      hooks: r.hooks.map((h) => `${h.point}#${h.method}`),
      warnings: [...r.warnings],
    })),
    ...failures.map((f): PluginState => ({
      id: f.pluginId,
      name: f.pluginId,
      version: "",
      folder: f.folder,
      state: "failed",
      error: f.error,
      tools: [],
      hooks: [],
      warnings: [],
    })),
  ];
}

/** `plugins` is the list of the last ready Runner: kept while a restart is under way. */
export function pluginProviderStatuses(runner: RunnerSnapshot, plugins: readonly PluginState[]): ProviderStatus[] {
  const runnerState = stateOfPhase[runner.phase];
  const detail: RunnerState = {
    pid: runner.pid,
    generation: runner.generation,
    restarts: runner.restarts,
    startedAt: runner.readySince,
    plugins: [...plugins],
  };
  const loadedTools = plugins.reduce((n, p) => n + p.tools.length, 0);
  const entries: ProviderStatus[] = [
    {
      name: PLUGIN_PROVIDER_NAME,
      type: "plugin",
      state: runnerState,
      toolCount: runnerState === "ready" ? loadedTools : 0,
      lastError: runner.lastError,
      detail,
    },
  ];
  for (const plugin of plugins) {
    const failed = plugin.state === "failed";
    entries.push({
      name: plugin.id,
      type: "plugin",
      state: failed ? "failed" : runnerState,
      toolCount: runnerState === "ready" ? plugin.tools.length : 0,
      lastError: failed ? plugin.error : runnerState === "ready" ? null : runner.lastError,
      detail: plugin,
    });
  }
  return entries;
}

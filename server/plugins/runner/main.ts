// The Runner process, started by the Host's supervisor as a compiled bundle under Node's permission
// model (host/runner-build.ts): connects back over the local socket, proves itself with the per-start
// token, loads the compiled plugins of its plan, registers their components and then answers calls
// until the Host goes away.
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { once } from "node:events";
import {
  helloAcceptSchema,
  ipcMethods,
  registerResultSchema,
  type Envelope,
  type LoadFailure,
} from "../../../lib/plugins/protocol";
import { runnerPlanSchema, type RunnerPlan } from "../../../lib/plugins/plan";
import { IpcConnection } from "../ipc/connection";
import { IpcError } from "../ipc/errors";
import { SDK_VERSION } from "../sdk";
import type { PluginLogger } from "../sdk/types";
import { RunnerDispatcher } from "./dispatcher";
import { loadPlugins, type LoadedPlugin } from "./loader";
import { takeRunnerSettings } from "./runner-env";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const REGISTER_TIMEOUT_MS = 10_000;

function log(message: string): void {
  process.stderr.write(`[plugin-runner] ${message}\n`);
}

function pluginLogger(pluginId: string): PluginLogger {
  const write = (level: string) => (message: string) =>
    process.stderr.write(`[plugin:${pluginId}] ${level} ${message}\n`);
  return { info: write("info"), warn: write("warn"), error: write("error") };
}

async function main(): Promise<void> {
  const settings = takeRunnerSettings(process.env);
  // A plugin's stray rejected promise must not take every other plugin down with it.
  process.on("unhandledRejection", (reason) => log(`unhandled rejection in plugin code: ${String(reason)}`));

  const socket = connect(settings.address);
  await once(socket, "connect");
  let dispatcher: RunnerDispatcher | null = null;
  const connection = new IpcConnection(socket, {
    maxFrameBytes: settings.maxFrameBytes,
    lost: { code: "E_RUNNER_UNAVAILABLE", message: "the host closed the connection" },
    onRequest: (request: Envelope, signal: AbortSignal) => {
      if (request.method === ipcMethods.shutdown) {
        setImmediate(() => process.exit(0));
        return {};
      }
      if (!dispatcher) throw new IpcError("E_RUNNER_UNAVAILABLE", "plugins are still loading");
      return dispatcher.handle(request, signal);
    },
    // Without its Host the Runner has nothing to do.
    onClose: () => process.exit(0),
  });

  const welcome = helloAcceptSchema.parse(
    await connection.request(
      ipcMethods.hello,
      { runnerId: settings.runnerId, sdkVersion: SDK_VERSION, token: settings.token },
      { timeoutMs: HANDSHAKE_TIMEOUT_MS },
    ),
  );

  const plan: RunnerPlan = settings.plan
    ? runnerPlanSchema.parse(JSON.parse(readFileSync(settings.plan, "utf8")))
    : { plugins: [], failed: [] };
  const outcome = await loadPlugins(plan, {
    grants: welcome.plugins,
    loadTimeoutMs: settings.loadTimeoutMs,
    logger: pluginLogger,
  });
  const failed: LoadFailure[] = [...outcome.failed];

  const registered: LoadedPlugin[] = [];
  for (const plugin of outcome.loaded) {
    try {
      // The Host reports what it skipped (duplicate names) to operators; the plugin still loads.
      registerResultSchema.parse(
        await connection.request(
          ipcMethods.registerComponents,
          { plugin: plugin.summary, tools: plugin.tools, hooks: plugin.hooks },
          { pluginId: plugin.summary.id, timeoutMs: REGISTER_TIMEOUT_MS },
        ),
      );
      registered.push(plugin);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      failed.push({
        pluginId: plugin.summary.id,
        folder: plugin.summary.folder,
        error: `refused by the host: ${reason}`,
      });
    }
  }
  dispatcher = new RunnerDispatcher(registered);
  // The Host logs the outcome and shows it to operators.
  await connection.request(ipcMethods.ready, { failed }, { timeoutMs: REGISTER_TIMEOUT_MS });
}

main().catch((error: unknown) => {
  log(`stopped: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exit(1);
});

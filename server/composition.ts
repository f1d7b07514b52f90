// Builds the engine from config, environment and stores: the one place where concrete parts meet.
// Used by the server, the CLI and the integration tests.
import { DEFAULT_ENDPOINT_NAME, type MaisakaConfig, type McpServerConfig } from "../lib/config/schema";
import { modelTaskSchema, type ModelTask } from "../lib/llm/messages";
import { HeartflowManager, HookRegistry, type OutboundSink } from "./engine";
import { stderrLogger, type Logger } from "./kernel/logger";
import { systemClock, type Clock } from "./kernel/clock";
import type { ModelClient } from "./llm/model-client";
import { OpenAiModelClient, type EndpointOptions, type ModelTarget } from "./llm/openai-client";
import { RecordingModelClient } from "./llm/recording-client";
import { createSimulatedModelClient } from "./llm/simulated";
import type { ContinueWith } from "../lib/rerun/schemas";
import type { RerunWorld } from "./rerun/run";
import { StateChanges } from "./kernel/state-changes";
import { SharedStreams } from "./monitor/shared-streams";
import { McpManager } from "./mcp/manager";
import { McpToolProvider } from "./mcp/provider";
import { MonitorBus } from "./monitor/bus";
import { PluginRuntime } from "./plugins/runtime";
import { ChildIsolation } from "./sandbox/child-isolation";
import { configSecrets, environmentSecrets, mcpServerSecrets, SecretMask } from "./sandbox/secret-mask";
import type { EventLedger } from "./monitor/ledger";
import type { Stores } from "./stores/types";
import type { ToolProvider } from "./tools/provider";
import { ToggleState } from "./tools/toggles";
import { BudgetWatch } from "./usage/budget";

export interface Engine {
  config: MaisakaConfig;
  clock: Clock;
  model: ModelClient;
  /** The same model, its calls not recorded (a re-run records its own calls on its clock). */
  unrecordedModel: ModelClient;
  stores: Stores;
  bus: MonitorBus;
  hooks: HookRegistry;
  toggles: ToggleState;
  logger: Logger;
  manager: HeartflowManager;
  /** Extra providers (plugins, MCP) shared by every session. */
  providers: ToolProvider[];
  /** The MCP servers (the config's, or the operator's saved list), changed live through it. */
  mcp: McpManager;
  /** Plugin tools and hooks; its Runner process starts only with plugins.start() (the server does). */
  plugins: PluginRuntime;
  /** Daily cost budgets (config models.budgets): checked after every recorded call. */
  budget: BudgetWatch;
  /** Operator changes saved here, told to the other nodes of a cluster (a no-op in a single process). */
  stateChanges: StateChanges;
  /** The streams no chat owns (`_global`, `_usage`): written here, or by their node in a cluster. */
  streams: SharedStreams;
  /** Every secret the server knows, masked in what child processes and MCP servers say (stderr, errors). */
  secrets: SecretMask;
  close(reason?: string): Promise<void>;
}

export interface EngineOptions {
  config: MaisakaConfig;
  stores: Stores;
  ledger: EventLedger;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  model?: ModelClient;
  /**
   * Where the bot's messages are delivered (absent: localOutbound, they stay in the event stream).
   * The server passes an OutboundRouter (server/platforms/outbound-router.ts): a platform's chats go
   * to the adapter owning them, every other session stays local.
   */
  outbound?: OutboundSink;
  /** The operator's saved MCP server list (server/mcp/server-settings.ts), in place of the config's. */
  mcpServers?: McpServerConfig[];
  /** The live settings' version, named with the prompts in what the model saw (absent: 0, none changed). */
  settingsVersion?: () => number;
}

/**
 * Endpoints: those of config.models.endpoints, plus "default" when OPENAI_BASE_URL or OPENAI_API_KEY
 * is set; none at all: the SIMULATED model. Tasks: config.models.tasks, else models.<task> (or
 * MAISAKA_MODEL) on the default endpoint, else on the first configured one.
 */
export function createModelClient(
  config: MaisakaConfig,
  stores: Stores,
  env: NodeJS.ProcessEnv = process.env,
): ModelClient {
  const baseURL = env.OPENAI_BASE_URL?.trim();
  const apiKey = env.OPENAI_API_KEY?.trim();
  const models = config.models;
  const endpoints: EndpointOptions[] = models.endpoints.map((e) => ({
    name: e.name,
    baseURL: e.baseUrl,
    // Local servers need no key; the SDK still wants a string.
    apiKey: (e.apiKeyEnv ? env[e.apiKeyEnv]?.trim() : undefined) || "not-needed",
    kind: e.kind,
    headers: e.headers,
  }));
  if (baseURL || apiKey) {
    endpoints.unshift({ name: DEFAULT_ENDPOINT_NAME, baseURL: baseURL || undefined, apiKey: apiKey || "not-needed" });
  }
  if (endpoints.length === 0) return createSimulatedModelClient({ usageStore: stores.usage, prices: models.prices });
  const known = new Set(endpoints.map((e) => e.name));
  const routes = taskRoutes(models.tasks);
  for (const [task, targets] of Object.entries(routes)) {
    const missing = targets.find((t) => !known.has(t.endpoint));
    if (missing) {
      throw new Error(
        `models.tasks.${task}: endpoint "${missing.endpoint}" needs OPENAI_BASE_URL or OPENAI_API_KEY to be set`,
      );
    }
  }
  const fallback = env.MAISAKA_MODEL?.trim() || models.planner;
  return new OpenAiModelClient({
    endpoints,
    routes,
    models: {
      planner: env.MAISAKA_MODEL?.trim() || models.planner,
      timingGate: models.timingGate ?? fallback,
      replyer: models.replyer ?? fallback,
      utils: models.utils ?? fallback,
    },
    maxRetries: models.maxRetries,
    timeoutMs: models.timeoutMs,
    usageStore: stores.usage,
    prices: config.models.prices,
  });
}

/** The targets per task of config.models.tasks: the route, then its fallbacks (ModelClient.reroute takes them). */
export function taskRoutes(tasks: MaisakaConfig["models"]["tasks"]): Partial<Record<ModelTask, ModelTarget[]>> {
  const routes: Partial<Record<ModelTask, ModelTarget[]>> = {};
  for (const task of modelTaskSchema.options) {
    const route = tasks[task];
    if (route) routes[task] = [route, ...route.fallback].map(({ endpoint, model }) => ({ endpoint, model }));
  }
  return routes;
}

export async function createEngine(opts: EngineOptions): Promise<Engine> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? stderrLogger;
  const bus = new MonitorBus(opts.ledger, clock, {
    // Once per failing batch, not per attempt: a full disk fails every retry (the database health logs
    // its state changes; this names what waits).
    onWriteError: (error, attempt) => {
      if (attempt === 1)
        logger.error(
          `[ledger] write failed, retrying until it succeeds: ${error instanceof Error ? error.message : String(error)}`,
        );
    },
    onOverflow: (phase, dropped) =>
      phase === "start"
        ? logger.warn("[ledger] backlog full while the ledger cannot write: dropping engine progress events")
        : logger.warn(`[ledger] backlog drained; ${dropped} engine progress events were dropped`),
    onUnwritten: (count, kept) => {
      const events = `${count} event${count === 1 ? "" : "s"} the database would not take`;
      if (kept) logger.warn(`[ledger] shutting down: ${events} kept in the intent journal for the next start`);
      else logger.error(`[ledger] shutting down: ${events} lost (no intent journal)`);
    },
  });
  await bus.init();
  const budget = new BudgetWatch({
    usage: opts.stores.usage,
    events: bus,
    ledger: opts.ledger,
    clock,
    budgets: () => opts.config.models.budgets,
  });
  // Every call the model clients record passes the budget check; everything else reads the stores as given.
  const given =
    opts.model ?? createModelClient(opts.config, { ...opts.stores, usage: budget.wrap(opts.stores.usage) }, opts.env);
  // Every session's model calls are kept (a given client's too): the cassette a re-run answers from.
  const model = new RecordingModelClient(given, { store: opts.stores.modelCalls, clock, logger });
  const toggles = new ToggleState(await opts.stores.toggles.list());
  const hooks = new HookRegistry(logger, clock);
  // One policy for every child process: own process group, private home, unprivileged user as root.
  const isolation = ChildIsolation.fromEnv(opts.env);
  const plugins = new PluginRuntime({ config: opts.config.plugins, hooks, logger, env: opts.env, isolation });
  const providers: ToolProvider[] = [plugins.provider];
  const mcpConfig = opts.mcpServers ? { ...opts.config.mcp, servers: opts.mcpServers } : opts.config.mcp;
  const secrets = new SecretMask();
  const env = opts.env ?? process.env;
  secrets.addSecrets(() => [...configSecrets(opts.config, env), ...environmentSecrets(env)]);
  // Always there, even without servers: operators add them live.
  const mcp = new McpManager(mcpConfig, { logger, isolation, model, redact: (text) => secrets.mask(text) });
  // The live list's secrets, whoever changed it since the start.
  secrets.addSecrets(() => mcp.servers().flatMap(mcpServerSecrets));
  secrets.addSecrets(() => [plugins.supervisor.pendingToken ?? undefined]);
  if (mcpConfig.enabled) {
    await mcp.start();
    providers.push(new McpToolProvider(mcp, { maxResultChars: mcpConfig.maxResultChars }));
  }
  const manager = new HeartflowManager({
    config: opts.config,
    clock,
    model,
    stores: opts.stores,
    events: bus,
    ledger: opts.ledger,
    hooks,
    providers: () => providers,
    toggles,
    logger,
    outbound: opts.outbound,
    settingsVersion: opts.settingsVersion,
  });
  return {
    config: opts.config,
    clock,
    model,
    unrecordedModel: given,
    stores: opts.stores,
    bus,
    hooks,
    toggles,
    logger,
    manager,
    providers,
    mcp,
    plugins,
    budget,
    stateChanges: new StateChanges(),
    streams: new SharedStreams(bus),
    secrets,
    async close(reason = "shutdown") {
      // From here a ledger that cannot write is not waited for (its events are kept, see beginClose).
      bus.beginClose();
      await manager.stopAll(reason);
      await plugins.close();
      await mcp.close();
      await bus.close();
    },
  };
}

/**
 * What a re-run borrows from this engine (server/rerun/run.ts): the live settings, toggles, hooks, tool
 * providers and bot data, and the model it goes on with once it leaves the recording.
 */
export function rerunWorld(engine: Engine, continueWith: ContinueWith): RerunWorld {
  const live =
    continueWith === "model"
      ? engine.unrecordedModel
      : continueWith === "simulated"
        ? createSimulatedModelClient({ usageStore: engine.stores.usage })
        : null;
  return {
    config: engine.config,
    isEnabled: (name, sessionId) => engine.toggles.isEnabled(name, sessionId),
    hooks: engine.hooks,
    providers: () => engine.providers,
    data: engine.stores,
    live,
    recordCalls: (model, store, clock) => new RecordingModelClient(model, { store, clock, logger: engine.logger }),
    logger: engine.logger,
  };
}

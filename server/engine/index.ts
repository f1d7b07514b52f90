// The engine's public surface: the rest of the server (HTTP, MCP, plugins, CLI, composition,
// realtime) imports engine things from here only.
export { HeartflowManager } from "./heartflow-manager";
export type { RuntimeStatus, SessionRuntime } from "./runtime";
export type { RuntimeSnapshotState } from "./persistence";

export { systemClock, sleep, type Clock, type TimerHandle } from "./clock";
export { stderrLogger, type EngineDeps, type EngineLogger, type EventSink, type ToggleView } from "./deps";
export { describeError } from "./errors";
export {
  HookRegistry,
  hookPoints,
  type HookHandler,
  type HookLogger,
  type HookPayloads,
  type HookPoint,
} from "./hooks";

export type { HistoryMessage } from "./context/messages";
export { plannerPlacement } from "./planner";
export { sessionAvailability } from "./session-scope";
export {
  createSessionlessTools,
  createToolRegistry,
  syncSharedProviders,
  type SessionlessTools,
  type ToolRegistryDeps,
} from "./tool-registry";
export { renderPrompt, promptOptions, type Locale, type PromptName } from "./prompts/templates";

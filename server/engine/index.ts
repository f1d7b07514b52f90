// The engine's public surface: the rest of the server (HTTP, MCP, plugins, CLI, composition,
// realtime, monitor) imports engine things from here only.
export { HeartflowManager } from "./heartflow-manager";
export type { RuntimeStatus, SessionRuntime } from "./runtime";
export type { RuntimeSnapshotState } from "./persistence";
export type { HistoryMessage } from "./context/messages";

export { systemClock, type Clock, type TimerHandle } from "./clock";
export { stderrLogger, type EngineDeps, type EngineLogger, type EventSink, type ToggleView } from "./deps";
export { HookRegistry, type HookPayloads } from "./hooks";

export { plannerPlacement } from "./planner";
export { sessionAvailability } from "./session-scope";
export { createSessionlessTools, type SessionlessTools } from "./tool-registry";

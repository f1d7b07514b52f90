// The engine's public surface: the rest of the server (HTTP, MCP, plugins, CLI, composition,
// realtime, monitor) imports engine things from here only.
export {
  HeartflowManager,
  RecordOnlySessionError,
  SessionArchivedError,
  SessionNotOwnedError,
  type OwnershipGate,
} from "./heartflow-manager";

export {
  localOutbound,
  type DeliveryResult,
  type EventSink,
  type OutboundMessage,
  type OutboundSink,
  type ToolAnswerSource,
} from "./deps";
export { HookRegistry, type HookPayloads, type HookRunner } from "./hooks";

export { plannerPlacement } from "./planner";
export { sessionAvailability } from "./session-scope";
export type { SessionlessTools } from "./tool-registry";
export { defaultPromptTemplates, promptNames } from "./prompts/templates";

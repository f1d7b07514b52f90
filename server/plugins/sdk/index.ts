// The plugin SDK (docs/plugins.md): decorators, the optional base class and the types plugin code sees.
export const SDK_VERSION = "1.0.0";

export { Action, Hook, Tool, type ActionOptions, type ToolMetadataOptions, type ToolOptions } from "./decorators";
export type { ToolParameter, ToolParameterType } from "./parameters";
export {
  Plugin,
  type ActionArgs,
  type HookCallContext,
  type PluginContext,
  type PluginLogger,
  type ToolCallContext,
} from "./types";
export type { HookPayloads } from "../../engine";

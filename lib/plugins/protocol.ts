// The Host <-> Runner IPC protocol (docs/plugins.md, "The protocol"): the envelope carried by
// every frame, the string error codes and the payload of each method. Both processes parse with these.
import { z } from "zod";
import { jsonObjectSchema, toolAvailabilityContextSchema } from "../tools/schemas";
import { hookDeclarationSchema, pluginSummarySchema, toolDeclarationSchema } from "./components";

export const PROTOCOL_VERSION = "1.0.0";
/** Frames above this size are refused by both sides (a runaway plugin result must not eat memory). */
export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

export const ipcErrorCodes = [
  "E_TIMEOUT",
  "E_BAD_PAYLOAD",
  "E_PLUGIN_CRASHED",
  "E_PLUGIN_NOT_FOUND",
  "E_COMPONENT_NOT_FOUND",
  "E_PROTOCOL_MISMATCH",
  "E_UNAUTHORIZED",
  "E_HANDLER_FAILED",
  "E_METHOD_NOT_FOUND",
  "E_FRAME_TOO_LARGE",
  "E_RUNNER_UNAVAILABLE",
  "E_CANCELLED",
] as const;
export type IpcErrorCode = (typeof ipcErrorCodes)[number];

/** Codes stay plain strings on the wire: a newer peer may send one this side does not know. */
export const ipcErrorSchema = z.object({ code: z.string().min(1), message: z.string() });
export type IpcErrorBody = z.infer<typeof ipcErrorSchema>;

export const envelopeSchema = z.object({
  protocolVersion: z.string(),
  requestId: z.number().int().nonnegative(),
  messageType: z.enum(["request", "response", "broadcast"]),
  method: z.string().min(1),
  pluginId: z.string(),
  timestampMs: z.number(),
  timeoutMs: z.number().int().nonnegative(),
  payload: z.unknown(),
  error: ipcErrorSchema.nullable(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export const ipcMethods = {
  /** Runner -> Host, first frame: proves the Runner was started by this Host. */
  hello: "runner.hello",
  /** Runner -> Host: one loaded plugin and its components. */
  registerComponents: "plugin.register_components",
  /** Runner -> Host: loading finished; carries the plugins that failed. */
  ready: "runner.ready",
  /** Host -> Runner: health check. */
  ping: "runner.ping",
  /** Host -> Runner: graceful stop. */
  shutdown: "runner.shutdown",
  invokeTool: "plugin.invoke_tool",
  invokeAction: "plugin.invoke_action",
  invokeHook: "plugin.invoke_hook",
  /** Broadcast either way: the sender gave up on a request (timeout, abort). */
  cancel: "request.cancel",
} as const;

export const helloPayloadSchema = z.object({
  runnerId: z.string(),
  sdkVersion: z.string(),
  token: z.string(),
});

/** What the Host grants each plugin: its settings and the environment variables config allows it. */
export const pluginGrantSchema = z.object({
  config: jsonObjectSchema.default({}),
  env: z.record(z.string(), z.string()).default({}),
});
export type PluginGrant = z.infer<typeof pluginGrantSchema>;

export const helloAcceptSchema = z.object({
  accepted: z.literal(true),
  hostVersion: z.string(),
  plugins: z.record(z.string(), pluginGrantSchema),
});
export type HelloAccept = z.infer<typeof helloAcceptSchema>;

export const registerComponentsSchema = z.object({
  plugin: pluginSummarySchema,
  tools: z.array(toolDeclarationSchema),
  hooks: z.array(hookDeclarationSchema),
});
export type RegisterComponents = z.infer<typeof registerComponentsSchema>;

export const registerResultSchema = z.object({
  accepted: z.array(z.string()),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
});
export type RegisterResult = z.infer<typeof registerResultSchema>;

export const loadFailureSchema = z.object({
  /** The manifest's id when it could be read, else the folder name. */
  pluginId: z.string(),
  folder: z.string(),
  error: z.string(),
});
export type LoadFailure = z.infer<typeof loadFailureSchema>;

export const readyPayloadSchema = z.object({ failed: z.array(loadFailureSchema) });
export type ReadyPayload = z.infer<typeof readyPayloadSchema>;

/**
 * Who is calling, for the plugin's information: the tool availability context (chat ids), plus
 * the call's id and the planner's reasoning.
 */
export const callContextSchema = toolAvailabilityContextSchema.extend({
  callId: z.string(),
  reasoning: z.string(),
});
export type CallContext = z.infer<typeof callContextSchema>;

export const invokeToolSchema = z.object({
  component: z.string(),
  args: jsonObjectSchema,
  context: callContextSchema,
});

/** Any JSON value: the Runner made it JSON-safe; the Host normalises it into a tool result. */
export const invokeResultSchema = z.object({ result: z.unknown() });

export const invokeHookSchema = z.object({
  method: z.string(),
  point: z.string(),
  payload: jsonObjectSchema,
});

export const hookResultSchema = z.object({ patch: jsonObjectSchema.nullable() });

export const cancelSchema = z.object({ requestId: z.number().int().nonnegative() });

// What a plugin declares, as the Runner reports it to the Host (docs/engine-rules.md#plugin-tools): tools (legacy actions
// included, converted to tools) and hook handlers.
import { z } from "zod";
import { jsonObjectSchema, toolAnnotationSchema, toolIconSchema } from "../tools/schemas";

/** The hook points of docs/engine-rules.md#hooks a plugin may handle. */
export const pluginHookPoints = [
  "maisaka.planner.before_request",
  "maisaka.planner.after_response",
  "maisaka.replyer.before_request",
  "maisaka.replyer.before_model_request",
  "maisaka.replyer.after_response",
] as const;
export const pluginHookPointSchema = z.enum(pluginHookPoints);
export type PluginHookPoint = z.infer<typeof pluginHookPointSchema>;

export const toolVisibilitySchema = z.enum(["visible", "deferred", "hidden"]);
export type ToolVisibility = z.infer<typeof toolVisibilitySchema>;
export const chatScopeSchema = z.enum(["all", "group", "private"]);
export type ChatScope = z.infer<typeof chatScopeSchema>;

/** OpenAI function names: what every model endpoint accepts. */
export const toolNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 letters, digits, _ or -");

export const toolDeclarationSchema = z.object({
  name: toolNameSchema,
  description: z.string(),
  /** The class method the Runner calls. */
  method: z.string().min(1),
  /** "action": a legacy @Action converted to a tool (also receives reasoning and actionData). */
  kind: z.enum(["tool", "action"]),
  parametersSchema: jsonObjectSchema,
  title: z.string().optional(),
  visibility: toolVisibilitySchema.optional(),
  coreTool: z.boolean().optional(),
  chatScope: chatScopeSchema.default("all"),
  /** Session ids, group ids or `platform:groupId`; empty = everywhere. */
  allowedSessions: z.array(z.string()).default([]),
  icons: z.array(toolIconSchema).default([]),
  annotation: toolAnnotationSchema.optional(),
  /** The author's own extra metadata, copied into the ToolSpec. */
  metadata: jsonObjectSchema.default({}),
});
export type ToolDeclaration = z.infer<typeof toolDeclarationSchema>;
export type ToolDeclarationInput = z.input<typeof toolDeclarationSchema>;

export const hookDeclarationSchema = z.object({
  point: pluginHookPointSchema,
  method: z.string().min(1),
  timeoutMs: z.number().int().positive().optional(),
});
export type HookDeclaration = z.infer<typeof hookDeclarationSchema>;

export const pluginSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string().default(""),
  folder: z.string(),
});
export type PluginSummary = z.infer<typeof pluginSummarySchema>;

// @Tool, @Action (legacy, converted to a tool) and @Hook: TC39 standard method decorators. Each one
// checks its options when the class is defined, so a bad declaration fails the plugin's loading with
// a message naming the tool instead of failing later at call time.
import {
  hookDeclarationSchema,
  toolDeclarationSchema,
  type ChatScope,
  type PluginHookPoint,
  type ToolDeclaration,
  type ToolVisibility,
} from "../../../lib/plugins/components";
import type { JsonObject, ToolAnnotation, ToolIcon } from "../../../lib/tools/schemas";
import type { HookPayloads } from "../../engine";
import { attachDeclaration } from "./declarations";
import { actionParametersToSchema, parametersToSchema, type ToolParameter } from "./parameters";
import type { HookCallContext, ToolCallContext } from "./types";

/** Metadata shared by tools and legacy actions (docs/engine-rules.md#tool-shapes, #plugin-tools). */
export interface ToolMetadataOptions {
  title?: string;
  /** "visible": offered to the planner directly; "deferred": found through tool_search; "hidden": disabled. */
  visibility?: ToolVisibility;
  /** Without a visibility, true makes the tool visible (default: deferred). */
  coreTool?: boolean;
  chatScope?: ChatScope;
  /** Session ids, group ids or `platform:groupId`; absent or empty = everywhere. */
  allowedSessions?: string[];
  icons?: ToolIcon[];
  annotation?: Partial<ToolAnnotation>;
  metadata?: JsonObject;
}

export interface ToolOptions extends ToolMetadataOptions {
  name: string;
  description: string;
  /** A JSON object schema, or a short list of parameters. */
  parameters?: JsonObject | readonly ToolParameter[];
}

export interface ActionOptions extends ToolMetadataOptions {
  name: string;
  description: string;
  /** Legacy `{name: description}`: each becomes a required string parameter. */
  actionParameters?: Readonly<Record<string, string>>;
  /** Legacy "when to use" lines, appended to the description. */
  actionRequire?: readonly string[];
}

type MaybePromise<T> = T | Promise<T>;

/**
 * A decorator generic in the method's first parameter, so authors may type their arguments
 * (`args: { notation: string }`) instead of reading an untyped record.
 */
type ArgsDecorator<Ctx> = <This, A extends object>(
  value: (this: This, args: A, ctx: Ctx) => unknown,
  context: ClassMethodDecoratorContext<This>,
) => void;

type HookDecorator<P extends PluginHookPoint> = <This>(
  value: (this: This, payload: HookPayloads[P], ctx: HookCallContext) => MaybePromise<Partial<HookPayloads[P]> | void>,
  context: ClassMethodDecoratorContext<This>,
) => void;

function methodName<This>(kind: string, context: ClassMethodDecoratorContext<This>): string {
  if (context.static || context.private || typeof context.name !== "string") {
    throw new TypeError(`@${kind} must decorate a public instance method (got ${String(context.name)})`);
  }
  return context.name;
}

function buildTool(
  kind: ToolDeclaration["kind"],
  method: string,
  options: ToolMetadataOptions & { name: string; description: string },
  schemaOf: () => JsonObject,
): ToolDeclaration {
  const invalid = (detail: string) => new TypeError(`invalid declaration of tool "${options.name}": ${detail}`);
  let parametersSchema: JsonObject;
  try {
    parametersSchema = schemaOf();
  } catch (error) {
    throw invalid(`parameters: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = toolDeclarationSchema.safeParse({
    name: options.name,
    description: options.description,
    method,
    kind,
    parametersSchema,
    title: options.title,
    visibility: options.visibility,
    coreTool: options.coreTool,
    chatScope: options.chatScope,
    allowedSessions: options.allowedSessions,
    icons: options.icons,
    annotation: options.annotation,
    metadata: options.metadata,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

export function Tool(options: ToolOptions): ArgsDecorator<ToolCallContext> {
  return (value, context) => {
    const method = methodName("Tool", context);
    attachDeclaration(value, {
      kind: "tool",
      tool: buildTool("tool", method, options, () => parametersToSchema(options.parameters)),
    });
  };
}

/** Legacy: the method receives its parameters plus `reasoning` and `actionData` (see ActionArgs). */
export function Action(options: ActionOptions): ArgsDecorator<ToolCallContext> {
  return (value, context) => {
    const method = methodName("Action", context);
    const require = options.actionRequire?.length
      ? `\n使用场景：\n${options.actionRequire.map((r) => `- ${r}`).join("\n")}`
      : "";
    const tool = buildTool("action", method, { ...options, description: `${options.description}${require}` }, () =>
      actionParametersToSchema(options.actionParameters ?? {}),
    );
    attachDeclaration(value, { kind: "tool", tool });
  };
}

export function Hook<P extends PluginHookPoint>(point: P, options: { timeoutMs?: number } = {}): HookDecorator<P> {
  return (value, context) => {
    const method = methodName("Hook", context);
    const parsed = hookDeclarationSchema.safeParse({ point, method, timeoutMs: options.timeoutMs });
    if (!parsed.success) throw new TypeError(`invalid @Hook on ${method}: ${parsed.error.issues[0].message}`);
    attachDeclaration(value, { kind: "hook", hook: parsed.data });
  };
}

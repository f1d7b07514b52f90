// The read-only view over the component registry that the tool provider and operator views use:
// entries become ToolSpecs (providerName = plugin id, providerType "plugin"), filtered by the
// availability context. Visibility (docs/engine-rules.md#plugin-tools) rides in metadata for the planner's placement:
// metadata.visibility wins, else coreTool true means visible, else deferred; hidden is disabled.
import type { ToolAvailabilityContext, ToolSpec } from "../../../lib/tools/schemas";
import type { ComponentRegistry, PluginRecord, ToolComponentEntry } from "./component-registry";

export interface ComponentQueryView {
  /** Published tools available in ctx (all of them without one). */
  toolSpecs(ctx?: ToolAvailabilityContext): ToolSpec[];
  /** A published tool's entry, if it is available in ctx. */
  tool(name: string, ctx?: ToolAvailabilityContext): Readonly<ToolComponentEntry> | undefined;
  plugins(): readonly Readonly<PluginRecord>[];
}

/** chatScope applies only when the context knows the chat kind; allowedSessions when it lists any. */
function isAvailable(entry: ToolComponentEntry, ctx?: ToolAvailabilityContext): boolean {
  if (!ctx) return true;
  if (entry.chatScope === "group" && ctx.isGroupChat === false) return false;
  if (entry.chatScope === "private" && ctx.isGroupChat === true) return false;
  if (entry.allowedSessions.length === 0) return true;
  const keys = [ctx.sessionId, ctx.groupId, ctx.platform && ctx.groupId ? `${ctx.platform}:${ctx.groupId}` : undefined];
  return keys.some((key) => key !== undefined && entry.allowedSessions.includes(key));
}

function toToolSpec(entry: ToolComponentEntry): ToolSpec {
  const metadata: ToolSpec["metadata"] = {
    ...entry.metadata,
    pluginId: entry.pluginId,
    invokeMethod: entry.invokeMethod,
    chatScope: entry.chatScope,
  };
  if (entry.visibility !== undefined) metadata.visibility = entry.visibility;
  if (entry.coreTool !== undefined) metadata.coreTool = entry.coreTool;
  if (entry.allowedSessions.length) metadata.allowedSessions = entry.allowedSessions;
  if (entry.kind === "action") metadata.legacyComponentType = "action";
  const spec: ToolSpec = {
    name: entry.name,
    description: entry.description || `工具 ${entry.name}`,
    parametersSchema: entry.parametersSchema,
    providerName: entry.pluginId,
    providerType: "plugin",
    enabled: entry.enabled,
    icons: entry.icons,
    metadata,
  };
  if (entry.title !== undefined) spec.title = entry.title;
  if (entry.annotation !== undefined) spec.annotation = entry.annotation;
  return spec;
}

export function createComponentQueryView(registry: ComponentRegistry): ComponentQueryView {
  // Same entry, same spec object: the argument validator caches compiled schemas by identity.
  const specs = new WeakMap<ToolComponentEntry, ToolSpec>();
  const specOf = (entry: ToolComponentEntry): ToolSpec => {
    let spec = specs.get(entry);
    if (!spec) specs.set(entry, (spec = toToolSpec(entry)));
    return spec;
  };
  return Object.freeze({
    toolSpecs: (ctx?: ToolAvailabilityContext) =>
      registry.isPublished
        ? registry
            .toolEntries()
            .filter((e) => isAvailable(e, ctx))
            .map(specOf)
        : [],
    tool: (name: string, ctx?: ToolAvailabilityContext) => {
      const entry = registry.isPublished ? registry.tool(name) : undefined;
      return entry && isAvailable(entry, ctx) ? entry : undefined;
    },
    plugins: () => registry.pluginRecords(),
  });
}

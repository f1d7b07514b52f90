// The Host's record of what the current Runner registered (docs/engine-rules.md#plugin-tools): one entry per plugin
// tool (tool name, plugin id, invoke method, parameter schema, visibility, enabled, chatScope,
// allowedSessions) and each plugin's hook handlers. Tool names are unique across plugins: the first
// registration wins and later ones are skipped with a warning.
import type { HookDeclaration, PluginSummary, ToolDeclaration } from "../../../lib/plugins/components";
import { ipcMethods, type RegisterComponents, type RegisterResult } from "../../../lib/plugins/protocol";

export interface ToolComponentEntry extends ToolDeclaration {
  pluginId: string;
  invokeMethod: typeof ipcMethods.invokeTool | typeof ipcMethods.invokeAction;
  /** False for visibility "hidden": listed for operators, never offered or invocable. */
  enabled: boolean;
}

export interface PluginRecord {
  summary: PluginSummary;
  /** The tools of this plugin that were accepted. */
  tools: string[];
  hooks: HookDeclaration[];
  warnings: string[];
}

export class ComponentRegistry {
  private readonly tools = new Map<string, ToolComponentEntry>();
  private readonly plugins = new Map<string, PluginRecord>();
  /** Components are offered only once the Runner said it is ready, and until it goes away. */
  private published = false;

  constructor(private readonly warn: (message: string) => void) {}

  register(payload: RegisterComponents): RegisterResult {
    const { plugin } = payload;
    this.remove(plugin.id);
    const record: PluginRecord = { summary: plugin, tools: [], hooks: payload.hooks, warnings: [] };
    const skipped: RegisterResult["skipped"] = [];
    for (const tool of payload.tools) {
      const owner = this.tools.get(tool.name);
      if (owner) {
        const reason =
          owner.pluginId === plugin.id
            ? `declared twice by plugin "${plugin.id}"`
            : `the name is already provided by plugin "${owner.pluginId}"`;
        const warning = `Duplicate plugin tool "${tool.name}" from plugin "${plugin.id}" skipped: ${reason}`;
        this.warn(`[plugins] ${warning}`);
        record.warnings.push(warning);
        skipped.push({ name: tool.name, reason });
        continue;
      }
      this.tools.set(tool.name, {
        ...tool,
        pluginId: plugin.id,
        invokeMethod: tool.kind === "action" ? ipcMethods.invokeAction : ipcMethods.invokeTool,
        enabled: tool.visibility !== "hidden",
      });
      record.tools.push(tool.name);
    }
    this.plugins.set(plugin.id, record);
    return { accepted: record.tools, skipped };
  }

  publish(): void {
    this.published = true;
  }

  /** The Runner is gone: nothing of it can be called any more. */
  clear(): void {
    this.published = false;
    this.tools.clear();
    this.plugins.clear();
  }

  get isPublished(): boolean {
    return this.published;
  }

  /** Registration order, which is the Runner's load order. */
  toolEntries(): readonly ToolComponentEntry[] {
    return [...this.tools.values()];
  }

  tool(name: string): ToolComponentEntry | undefined {
    return this.tools.get(name);
  }

  pluginRecords(): readonly PluginRecord[] {
    return [...this.plugins.values()];
  }

  private remove(pluginId: string): void {
    for (const [name, entry] of this.tools) if (entry.pluginId === pluginId) this.tools.delete(name);
    this.plugins.delete(pluginId);
  }
}

// The unified tool view (docs/engine-rules.md#tool-registry): providers in registration order, first name wins, operator
// toggles applied as enabled:false. Discovery is live: every call asks the providers again.
import {
  failedToolResult,
  toLlmDefinition,
  type LlmToolDefinition,
  type ToolAvailabilityContext,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../lib/tools/schemas";
import type { ToolProvider } from "./provider";
import type { ToolToggles } from "./toggles";
import { ArgumentValidator } from "./validation";

export interface RegistryLogger {
  warn(message: string): void;
}

export interface ToolRegistryOptions {
  logger?: RegistryLogger;
  toggles?: ToolToggles;
}

/** One spec as an operator sees it: disabled and shadowed ones included. */
export interface ToolCatalogEntry {
  /** `enabled` is false when the provider or an operator toggle disabled it. */
  spec: ToolSpec;
  /** The registered provider that listed it (a plugin spec's own providerName is its plugin id). */
  providerName: string;
  disabledBy: "provider" | "toggle" | null;
  /** Set when an earlier enabled spec already took the name: this one is never offered. */
  shadowedBy: string | null;
}

const consoleLogger: RegistryLogger = { warn: (message) => console.warn(message) };

function availabilityOf(inv: ToolInvocation, ctx?: ToolExecutionContext): ToolAvailabilityContext {
  if (!ctx) return { sessionId: inv.sessionId, streamId: inv.streamId };
  const { sessionId, streamId, isGroupChat, groupId, userId, platform } = ctx;
  return { sessionId, streamId, isGroupChat, groupId, userId, platform };
}

function errorName(error: unknown): string {
  if (!(error instanceof Error)) return "Error";
  // Subclasses that do not set `name` still carry their class name.
  if (error.name !== "Error") return error.name;
  return error.constructor.name || "Error";
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${errorName(error)}: ${error.message}` : String(error);
}

export function exceptionText(toolName: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `工具 ${toolName} 调用失败：${errorName(error)}${message ? `: ${message}` : ""}`;
}

export class ToolRegistry {
  private providers: ToolProvider[] = [];
  private readonly logger: RegistryLogger;
  private readonly toggles: ToolToggles | undefined;
  private readonly validator: ArgumentValidator;
  /** Warnings already given, so a live listing every round does not flood the log. */
  private readonly warned = new Set<string>();

  constructor(options: ToolRegistryOptions = {}) {
    this.logger = options.logger ?? consoleLogger;
    this.toggles = options.toggles;
    this.validator = new ArgumentValidator((message) => this.warnOnce(message));
  }

  registerProvider(provider: ToolProvider): void {
    this.providers = this.providers.filter((p) => p.providerName !== provider.providerName);
    this.providers.push(provider);
    this.warned.clear();
  }

  unregisterProvider(providerName: string): boolean {
    const before = this.providers.length;
    this.providers = this.providers.filter((p) => p.providerName !== providerName);
    this.warned.clear();
    return this.providers.length !== before;
  }

  listProviders(): readonly ToolProvider[] {
    return [...this.providers];
  }

  async listTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    const entries = await this.listAllTools(ctx);
    return entries.filter((e) => e.spec.enabled && !e.shadowedBy).map((e) => e.spec);
  }

  /** Every spec of every provider, for operator views (toggles use ctx.sessionId, none = global). */
  async listAllTools(ctx?: ToolAvailabilityContext): Promise<ToolCatalogEntry[]> {
    const providers = [...this.providers];
    const lists = await Promise.all(providers.map((p) => this.providerTools(p, ctx)));
    const owners = new Map<string, string>();
    const entries: ToolCatalogEntry[] = [];
    lists.forEach((specs, index) => {
      const providerName = providers[index].providerName;
      for (const raw of specs) {
        const disabledBy = this.disabledBy(raw, ctx?.sessionId);
        const spec = disabledBy === "toggle" ? { ...raw, enabled: false } : raw;
        const shadowedBy = owners.get(spec.name) ?? null;
        if (!disabledBy) {
          if (shadowedBy) {
            this.warnOnce(
              `Duplicate tool "${spec.name}" from provider "${spec.providerName || providerName}" skipped: the name is already provided by "${shadowedBy}"`,
            );
          } else {
            owners.set(spec.name, spec.providerName || providerName);
          }
        }
        entries.push({ spec, providerName, disabledBy, shadowedBy });
      }
    });
    return entries;
  }

  async getToolSpec(name: string, ctx?: ToolAvailabilityContext): Promise<ToolSpec | null> {
    return (await this.listTools(ctx)).find((spec) => spec.name === name) ?? null;
  }

  async hasTool(name: string, ctx?: ToolAvailabilityContext): Promise<boolean> {
    return (await this.getToolSpec(name, ctx)) !== null;
  }

  async getLlmDefinitions(ctx?: ToolAvailabilityContext): Promise<LlmToolDefinition[]> {
    return (await this.listTools(ctx)).map(toLlmDefinition);
  }

  async invoke(invocation: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult> {
    const name = invocation.toolName;
    const availability = availabilityOf(invocation, ctx);
    const target = await this.findProvider(name, availability);
    if (!target) return failedToolResult(name, `未找到工具：${name}`);

    const validation = this.validator.validate(name, target.spec.parametersSchema, invocation.arguments);
    if (!validation.ok) {
      return failedToolResult(name, `工具 ${name} 参数无效：${validation.problems.join("; ")}`);
    }
    try {
      return await target.provider.invoke({ ...invocation, arguments: validation.args }, ctx);
    } catch (error) {
      return failedToolResult(name, exceptionText(name, error));
    }
  }

  async close(): Promise<void> {
    const providers = [...this.providers];
    // Each close runs on its own: one provider failing (or throwing synchronously) spares the others.
    const results = await Promise.allSettled(providers.map(async (p) => p.close()));
    results.forEach((result, index) => {
      if (result.status === "rejected") {
        this.logger.warn(
          `Closing tool provider "${providers[index].providerName}" failed: ${describeError(result.reason)}`,
        );
      }
    });
  }

  private async findProvider(
    name: string,
    ctx: ToolAvailabilityContext,
  ): Promise<{ provider: ToolProvider; spec: ToolSpec } | null> {
    for (const provider of [...this.providers]) {
      const specs = await this.providerTools(provider, ctx);
      const spec = specs.find((s) => s.name === name && !this.disabledBy(s, ctx.sessionId));
      if (spec) return { provider, spec };
    }
    return null;
  }

  private disabledBy(spec: ToolSpec, sessionId: string | undefined): ToolCatalogEntry["disabledBy"] {
    if (!spec.enabled) return "provider";
    if (this.toggles && !this.toggles.isEnabled(spec.name, sessionId)) return "toggle";
    return null;
  }

  /** One provider's current list; a provider that fails to list offers nothing this time. */
  private async providerTools(provider: ToolProvider, ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    try {
      return await provider.listTools(ctx);
    } catch (error) {
      this.logger.warn(`Tool provider "${provider.providerName}" failed to list its tools: ${describeError(error)}`);
      return [];
    }
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.logger.warn(message);
  }
}

// The engine's own tools as a ToolProvider (docs/engine-rules.md#builtin-tools). Listing is computed from the host's
// current config on every call, so config switches apply without a restart.
import { frozen } from "../../../lib/json/frozen";
import {
  failedToolResult,
  type ToolAvailabilityContext,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../../lib/tools/schemas";
import type { ToolProvider } from "../provider";
import { continueTool } from "./continue";
import type { BuiltinStage, BuiltinToolEntry, BuiltinVisibility } from "./entry";
import { finishTool } from "./finish";
import type { BuiltinToolHost } from "./host";
import { noActionTool } from "./no-action";
import { queryJargonTool } from "./query-jargon";
import { queryMemoryTool } from "./query-memory";
import { queryPersonProfileTool } from "./query-person-profile";
import { replyTool } from "./reply";
import { sendEmojiTool } from "./send-emoji";
import { toolSearchTool } from "./tool-search";
import { viewComplexMessageTool } from "./view-complex-message";
import { waitTool } from "./wait";

export const BUILTIN_PROVIDER_NAME = "maisaka_builtin";

/** The timing gate's tools; the planner never sees them. */
export const timingToolNames: readonly string[] = ["continue", "no_action", "wait"];

export const builtinToolEntries: readonly BuiltinToolEntry[] = [
  continueTool,
  noActionTool,
  waitTool,
  replyTool,
  sendEmojiTool,
  finishTool,
  queryJargonTool,
  queryMemoryTool,
  queryPersonProfileTool,
  viewComplexMessageTool,
  toolSearchTool,
];

export interface BuiltinProviderOptions {
  entries?: readonly BuiltinToolEntry[];
  random?: () => number;
}

export interface BuiltinListOptions {
  /** Only tools of this stage ("both" belongs to either). */
  stage?: Exclude<BuiltinStage, "both">;
}

/** Whether two configs hold the same section objects. */
function sameSections<T extends object>(a: T, b: T): boolean {
  if (a === b) return true;
  const keys = Object.keys(a) as (keyof T)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function visibilityOf(entry: BuiltinToolEntry): BuiltinVisibility {
  return entry.visibility ?? "visible";
}

export class BuiltinToolProvider implements ToolProvider {
  readonly providerName = BUILTIN_PROVIDER_NAME;
  readonly providerType = "builtin" as const;
  private readonly entries: readonly BuiltinToolEntry[];
  private readonly random: () => number;
  /**
   * Specs depend only on the entry and the config's sections; rebuilt when a section is replaced. Live
   * settings replace sections rather than editing them, and each turn runs on a shallow copy of the
   * config (server/engine/runtime.ts), so a copy with the same sections keeps the specs.
   */
  private specCache = { config: null as BuiltinToolHost["config"] | null, specs: new Map<string, ToolSpec>() };

  constructor(
    private readonly host: BuiltinToolHost,
    options: BuiltinProviderOptions = {},
  ) {
    this.entries = options.entries ?? builtinToolEntries;
    this.random = options.random ?? Math.random;
  }

  /** Visible and deferred tools (deferred ones carry metadata.visibility "deferred"); hidden never. */
  async listTools(ctx?: ToolAvailabilityContext, opts: BuiltinListOptions = {}): Promise<ToolSpec[]> {
    return this.entries.filter((e) => this.offered(e, ctx, opts.stage)).map((e) => this.toSpec(e));
  }

  /** What the timing gate may call: visible timing-stage tools. */
  async listTimingTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    const specs = await this.listTools(ctx, { stage: "timing" });
    return specs.filter((spec) => spec.metadata.visibility === "visible");
  }

  /** Action-stage tools, visible and deferred. */
  async listActionTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    return this.listTools(ctx, { stage: "action" });
  }

  async invoke(invocation: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult> {
    const entry = this.entries.find((e) => e.name === invocation.toolName);
    if (!entry || !this.offered(entry, ctx)) {
      return failedToolResult(invocation.toolName, `未找到内置工具处理器：${invocation.toolName}`);
    }
    return entry.handle({ host: this.host, invocation, ctx, random: this.random });
  }

  async close(): Promise<void> {}

  private offered(
    entry: BuiltinToolEntry,
    ctx: ToolAvailabilityContext | undefined,
    stage?: BuiltinListOptions["stage"],
  ): boolean {
    if (visibilityOf(entry) === "hidden") return false;
    if (entry.enabledBy && !entry.enabledBy(this.host.config)) return false;
    if (stage && entry.stage !== stage && entry.stage !== "both") return false;
    const scope = entry.chatScope ?? "all";
    // Scope filters apply only when the context says which kind of chat this is.
    if (scope !== "all" && ctx?.isGroupChat !== undefined && ctx.isGroupChat !== (scope === "group")) return false;
    return true;
  }

  private toSpec(entry: BuiltinToolEntry): ToolSpec {
    const { config } = this.host;
    if (!this.specCache.config || !sameSections(this.specCache.config, config)) {
      this.specCache = { config, specs: new Map() };
    }
    let spec = this.specCache.specs.get(entry.name);
    if (!spec) this.specCache.specs.set(entry.name, (spec = this.buildSpec(entry)));
    return spec;
  }

  private buildSpec(entry: BuiltinToolEntry): ToolSpec {
    const parts = entry.buildSpec(this.host.config);
    return {
      ...parts,
      // Immutable, so a recorded model call (server/llm/recording-client.ts) shares it instead of copying.
      ...(parts.parametersSchema ? { parametersSchema: frozen(parts.parametersSchema) } : {}),
      name: entry.name,
      providerName: BUILTIN_PROVIDER_NAME,
      providerType: "builtin",
      enabled: true,
      icons: [],
      metadata: {
        builtinStage: entry.stage,
        visibility: visibilityOf(entry),
        chatScope: entry.chatScope ?? "all",
        ...(entry.speaksInChat ? { speaksInChat: true } : {}),
      },
    };
  }
}

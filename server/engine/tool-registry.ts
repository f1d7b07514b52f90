// Tool registries: the builtin provider first, then the shared providers (plugins, MCP) in their
// order, with the operator's toggles. A session's runtime builds one around its tool host; a caller
// outside any chat (the MCP gateway) builds one without a runtime or a stored session.
import type { ToolAvailabilityContext } from "../../lib/tools/schemas";
import { BuiltinToolProvider } from "../tools/builtin/provider";
import type { BuiltinToolHost } from "../tools/builtin/host";
import type { ToolProvider } from "../tools/provider";
import { ToolRegistry } from "../tools/registry";
import type { EngineDeps } from "./deps";

export type ToolRegistryDeps = Pick<EngineDeps, "config" | "stores" | "toggles" | "logger" | "providers">;

function createToolRegistry(
  deps: Pick<EngineDeps, "toggles" | "logger" | "providers">,
  host: BuiltinToolHost,
): ToolRegistry {
  const registry = new ToolRegistry({ toggles: deps.toggles, logger: deps.logger });
  registry.registerProvider(new BuiltinToolProvider(host));
  syncSharedProviders(registry, deps.providers());
  return registry;
}

/**
 * Brings a registry in line with the shared providers, which come and go while the process runs
 * (a plugin Runner starting); the builtin provider stays first.
 */
export function syncSharedProviders(registry: ToolRegistry, shared: readonly ToolProvider[]): void {
  const registered = registry.listProviders().filter((p) => p.providerType !== "builtin");
  if (registered.length === shared.length && registered.every((p, i) => p === shared[i])) return;
  for (const p of registered) registry.unregisterProvider(p.providerName);
  for (const p of shared) registry.registerProvider(p);
}

/** The builtin tools' host outside a chat: lookups work, anything that speaks in a chat refuses. */
class DetachedToolHost implements BuiltinToolHost {
  constructor(private readonly deps: Pick<EngineDeps, "config" | "stores">) {}

  get config() {
    return this.deps.config;
  }

  get stores() {
    return this.deps.stores;
  }

  writeReply(): Promise<string> {
    return Promise.reject(new Error("replies need a chat session"));
  }

  chooseEmoji(): Promise<{ index: number; reason: string }> {
    return Promise.reject(new Error("emojis need a chat session"));
  }

  send(): Promise<never> {
    return Promise.reject(new Error("sending needs a chat session"));
  }

  async deferredTools() {
    return [];
  }

  async discoveredToolNames() {
    return new Set<string>();
  }
}

/** A registry for callers outside any chat, with the context its tools see (toggles apply to `id`). */
export interface SessionlessTools {
  registry: ToolRegistry;
  context: ToolAvailabilityContext;
  /** Picks up shared providers that came or went since it was built. */
  refresh(): void;
}

/** Builds the registry without a runtime and without storing a session. */
export function createSessionlessTools(
  deps: ToolRegistryDeps,
  scope: { id: string; platform: string },
): SessionlessTools {
  const registry = createToolRegistry(deps, new DetachedToolHost(deps));
  return {
    registry,
    context: { sessionId: scope.id, streamId: scope.id, isGroupChat: false, platform: scope.platform },
    refresh: () => syncSharedProviders(registry, deps.providers()),
  };
}

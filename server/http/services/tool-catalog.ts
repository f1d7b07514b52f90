// The tool catalog as operators see it: every spec of every provider (disabled and shadowed ones
// included) with icons and annotations exactly as the providers gave them, plus the effective state.
// It lists what a session really gets: a live session's own registry, otherwise a registry built
// the way a runtime builds its own (builtin provider, then the shared providers).
import type { ToolView } from "../../../lib/api/schemas";
import type { Engine } from "../../composition";
import { plannerPlacement, sessionAvailability, type EngineLogger } from "../../engine";
import type { SessionRecord } from "../../stores/types";
import { BuiltinToolProvider } from "../../tools/builtin/provider";
import type { BuiltinToolHost } from "../../tools/builtin/host";
import { ToolRegistry, type ToolCatalogEntry } from "../../tools/registry";
import type { ToggleProvenance } from "./toggle-provenance";

/** A host for listing only: builtin listings read the config; running a tool here is a bug. */
function listingHost(engine: Engine): BuiltinToolHost {
  const refuse = (): never => {
    throw new Error("the catalog's builtin provider lists tools only");
  };
  return {
    config: engine.config,
    stores: engine.stores,
    writeReply: refuse,
    chooseEmoji: refuse,
    send: refuse,
    deferredTools: refuse,
    discoveredToolNames: refuse,
  };
}

export class ToolCatalog {
  private readonly host: BuiltinToolHost;

  constructor(
    private readonly engine: Engine,
    private readonly provenance: ToggleProvenance,
    private readonly logger: EngineLogger,
  ) {
    this.host = listingHost(engine);
  }

  /** Every spec of the session's view (or the global view without a session). */
  async entries(session: SessionRecord | null): Promise<ToolCatalogEntry[]> {
    const ctx = session ? sessionAvailability(session) : undefined;
    const live = session ? this.engine.manager.get(session.id) : undefined;
    if (live && !live.isStopped) return live.registry.listAllTools(ctx);
    // Not closed afterwards: the shared providers belong to the engine, the builtin one holds nothing.
    const registry = new ToolRegistry({ toggles: this.engine.toggles, logger: this.logger });
    registry.registerProvider(new BuiltinToolProvider(this.host));
    for (const provider of this.engine.providers) registry.registerProvider(provider);
    return registry.listAllTools(ctx);
  }

  async views(session: SessionRecord | null): Promise<ToolView[]> {
    const sessionId = session?.id;
    return (await this.entries(session)).map((entry) => {
      const toggle = this.engine.toggles.effectiveToggle(entry.spec.name, sessionId);
      return {
        ...entry.spec,
        enabled: entry.disabledBy === null,
        providerEnabled: entry.disabledBy !== "provider",
        toggledBy: toggle ? this.provenance.of(toggle) : null,
        shadowedBy: entry.shadowedBy,
        placement: plannerPlacement(entry.spec),
      };
    });
  }

  async has(name: string, session: SessionRecord | null): Promise<boolean> {
    return (await this.entries(session)).some((entry) => entry.spec.name === name);
  }
}

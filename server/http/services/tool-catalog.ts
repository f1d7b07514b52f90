// The tool catalog as operators see it: every spec of every provider (disabled and shadowed ones
// included) with annotations exactly as the providers gave them, icons made same-origin (icon-proxy.ts),
// plus the effective state.
// It lists what a session really gets: a live session's own registry, otherwise a registry built
// the way a runtime builds its own (builtin provider, then the shared providers).
import type { ToolView } from "../../../lib/api/schemas";
import type { Engine } from "../../composition";
import { plannerPlacement, sessionAvailability } from "../../engine";
import type { SessionRecord } from "../../stores/sessions";
import type { ToolCatalogEntry } from "../../tools/registry";
import type { IconProxy } from "./icon-proxy";
import type { ToggleProvenance } from "./toggle-provenance";

export class ToolCatalog {
  constructor(
    private readonly engine: Engine,
    private readonly provenance: ToggleProvenance,
    private readonly icons: IconProxy,
  ) {}

  /** Every spec of the session's view (or the global view without a session). */
  async entries(session: SessionRecord | null): Promise<ToolCatalogEntry[]> {
    const ctx = session ? sessionAvailability(session) : undefined;
    return this.engine.manager.toolRegistry(session?.id ?? null).listAllTools(ctx);
  }

  async views(session: SessionRecord | null): Promise<ToolView[]> {
    const sessionId = session?.id;
    return (await this.entries(session)).map((entry) => {
      const toggle = this.engine.toggles.effectiveToggle(entry.spec.name, sessionId);
      return {
        ...entry.spec,
        // The browser loads icons from this origin only (icon-proxy.ts).
        icons: entry.spec.icons.flatMap((icon) => {
          const src = this.icons.rewrite(icon.src);
          return src ? [{ ...icon, src }] : [];
        }),
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

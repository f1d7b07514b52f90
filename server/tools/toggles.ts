// Operator toggle policy (docs/engine-rules.md#tool-registry): a session toggle wins over the global one; a tool without
// any toggle is enabled. The registry reads it on every listing, so `apply` takes effect at once.
import type { ToolToggle } from "../stores/toggles";

export interface ToolToggles {
  isEnabled(toolName: string, sessionId: string | undefined): boolean;
}

export class ToggleState implements ToolToggles {
  private readonly global = new Map<string, ToolToggle>();
  /** sessionId -> toolName -> toggle: two map lookups, no key string per listed spec. */
  private readonly session = new Map<string, Map<string, ToolToggle>>();

  constructor(toggles: Iterable<ToolToggle> = []) {
    for (const toggle of toggles) this.apply(toggle);
  }

  /** Replaces every toggle by these (another node changed them: the database's rows are the truth). */
  replaceAll(toggles: Iterable<ToolToggle>): void {
    this.global.clear();
    this.session.clear();
    for (const toggle of toggles) this.apply(toggle);
  }

  apply(toggle: ToolToggle): void {
    const copy = { ...toggle };
    if (toggle.scope === "global") this.global.set(toggle.toolName, copy);
    // A session toggle without a session cannot match anything; ignore it rather than guess.
    else if (toggle.sessionId !== null) {
      let bySession = this.session.get(toggle.sessionId);
      if (!bySession) this.session.set(toggle.sessionId, (bySession = new Map<string, ToolToggle>()));
      bySession.set(toggle.toolName, copy);
    }
  }

  /** The toggle that decides the tool's state for this session, if any (for operator views). */
  effectiveToggle(toolName: string, sessionId: string | undefined): ToolToggle | null {
    const toggle = this.lookup(toolName, sessionId);
    return toggle ? { ...toggle } : null;
  }

  isEnabled(toolName: string, sessionId: string | undefined): boolean {
    return this.lookup(toolName, sessionId)?.enabled ?? true;
  }

  private lookup(toolName: string, sessionId: string | undefined): ToolToggle | undefined {
    const bySession = sessionId === undefined ? undefined : this.session.get(sessionId)?.get(toolName);
    return bySession ?? this.global.get(toolName);
  }

  list(): ToolToggle[] {
    const perSession = [...this.session.values()].flatMap((m) => [...m.values()]);
    return [...this.global.values(), ...perSession].map((toggle) => ({ ...toggle }));
  }
}

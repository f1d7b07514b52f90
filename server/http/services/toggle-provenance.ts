// Who set each current toggle, when and why: the newest audit entry per (tool, scope, session),
// loaded once at start and kept current by the toggle service, so listing tools reads no audit table.
import type { ToolView } from "../../../lib/api/schemas";
import type { ToggleAuditEntry, ToggleStore, ToolToggle } from "../../stores/toggles";

type Provenance = NonNullable<ToolView["toggledBy"]>;

function keyOf(toggle: Pick<ToolToggle, "toolName" | "scope" | "sessionId">): string {
  return JSON.stringify([toggle.scope, toggle.scope === "session" ? toggle.sessionId : null, toggle.toolName]);
}

export class ToggleProvenance {
  private readonly latest = new Map<string, Provenance>();

  static async load(store: ToggleStore): Promise<ToggleProvenance> {
    const provenance = new ToggleProvenance();
    await provenance.reload(store);
    return provenance;
  }

  /** Reads the audit again (another node set a toggle). */
  async reload(store: ToggleStore): Promise<void> {
    const entries = await store.audit();
    this.latest.clear();
    // Newest first: the first entry seen for a key is the one in force.
    for (const entry of entries) {
      if (!this.latest.has(keyOf(entry))) this.record(entry);
    }
  }

  record(entry: ToggleAuditEntry): void {
    this.latest.set(keyOf(entry), { scope: entry.scope, actor: entry.actor, reason: entry.reason, ts: entry.ts });
  }

  of(toggle: ToolToggle): Provenance | null {
    return this.latest.get(keyOf(toggle)) ?? null;
  }
}

import type { AuditActor } from "../audit";
import type { ToggleAuditEntry, ToggleStore, ToolToggle } from "../toggles";
import { copy, takeFirst, type IdSource } from "./support";

function toggleKey(t: Pick<ToolToggle, "toolName" | "scope" | "sessionId">): string {
  return JSON.stringify([t.scope, t.scope === "session" ? t.sessionId : null, t.toolName]);
}

export class MemoryToggleStore implements ToggleStore {
  private readonly toggles = new Map<string, ToolToggle>();
  private readonly entries: ToggleAuditEntry[] = [];

  constructor(private readonly newId: IdSource) {}

  async list(): Promise<ToolToggle[]> {
    return [...this.toggles.values()].map(copy);
  }

  async set(toggle: ToolToggle, actor: AuditActor, reason: string, ts: number): Promise<ToggleAuditEntry> {
    const stored: ToolToggle = {
      toolName: toggle.toolName,
      scope: toggle.scope,
      sessionId: toggle.scope === "session" ? toggle.sessionId : null,
      enabled: toggle.enabled,
    };
    const key = toggleKey(stored);
    const oldEnabled = this.toggles.get(key)?.enabled ?? null;
    this.toggles.set(key, stored);
    const entry: ToggleAuditEntry = {
      ...stored,
      id: this.newId("toggle-audit"),
      actor: actor.name,
      actorId: actor.id,
      reason,
      oldEnabled,
      ts,
    };
    this.entries.push(entry);
    return copy(entry);
  }

  /** Newest first. */
  async audit(opts: { limit?: number } = {}): Promise<ToggleAuditEntry[]> {
    const newestFirst = this.entries
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => b.entry.ts - a.entry.ts || b.index - a.index)
      .map(({ entry }) => entry);
    return takeFirst(newestFirst, opts.limit).map(copy);
  }
}

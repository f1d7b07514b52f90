// What an audit entry's target is called, for the audit list: a person reads the session's name, the
// account's, the memory's text, not their ids. Targets are "kind:id" ("session:…", "account:…",
// "memory:…", "jargon:…", "person:…", "emoji:…") or a tool in a session ("tool:<name>@session:<id>");
// the others ("tool:reply", "mcp-server:<name>", "settings") are names already. A record the entry
// carries (its before or after) names it even once deleted; else the store's current one.
import type { AuditRecord } from "../../stores/audit";
import type { Stores } from "../../stores/types";

export interface AuditTargetLookups {
  stores: Pick<Stores, "sessions" | "memories" | "jargon" | "persons" | "emojis">;
  accountName(id: string): string | null;
}

const TEXT_CHARS = 60;
const clip = (text: string) => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS)}…` : text);

/** A field of the entry's after or before record (whichever has it). */
function recorded(entry: AuditRecord, field: string): string | null {
  for (const side of [entry.after, entry.before]) {
    const value = side && typeof side === "object" ? (side as Record<string, unknown>)[field] : undefined;
    if (typeof value === "string" && value) return value;
  }
  return null;
}

/** The name of each entry's target (null: its target is a name already, or nothing names it). */
export async function auditTargetNames(
  entries: readonly AuditRecord[],
  lookups: AuditTargetLookups,
): Promise<Map<string, string | null>> {
  const { stores } = lookups;
  const sessionNames = new Map<string, Promise<string | null>>();
  const sessionName = (id: string) => {
    let name = sessionNames.get(id);
    if (!name) sessionNames.set(id, (name = stores.sessions.get(id).then((s) => s?.name || null)));
    return name;
  };
  const nameOf = async (entry: AuditRecord): Promise<string | null> => {
    const tool = /^tool:(.+)@session:(.+)$/.exec(entry.target);
    if (tool) return `${tool[1]} @ ${(await sessionName(tool[2])) ?? tool[2]}`;
    const at = entry.target.indexOf(":");
    const [kind, id] = [entry.target.slice(0, at), entry.target.slice(at + 1)];
    switch (kind) {
      case "session":
        return sessionName(id);
      case "account":
        return lookups.accountName(id) ?? recorded(entry, "name");
      case "memory": {
        const text = recorded(entry, "content") ?? (await stores.memories.get(id))?.content;
        return text ? clip(text) : null;
      }
      case "jargon":
        return recorded(entry, "word") ?? (await stores.jargon.get(id))?.word ?? null;
      case "person":
        return recorded(entry, "name") ?? (await stores.persons.get(id))?.personName ?? null;
      case "emoji": {
        const text = recorded(entry, "description") ?? (await stores.emojis.get(id))?.description;
        return text ? clip(text) : null;
      }
      default:
        return null;
    }
  };
  const names = await Promise.all(entries.map(nameOf));
  return new Map(entries.map((e, i) => [e.id, names[i]]));
}

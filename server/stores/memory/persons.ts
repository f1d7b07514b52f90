import type { PersonProfile, PersonStore } from "../types";
import { copy, takeFirst, type IdSource } from "./support";

type PersonInput = Omit<PersonProfile, "updatedAt" | "personId"> & { personId?: string };

const fold = (s: string) => s.trim().toLowerCase();

export class MemoryPersonStore implements PersonStore {
  private readonly profiles = new Map<string, PersonProfile>();

  constructor(
    private readonly newId: IdSource,
    private readonly now: () => number,
  ) {}

  /** By person id first, then by name (case-insensitive), then by platform user id. */
  async find(nameOrId: string): Promise<PersonProfile | null> {
    const key = nameOrId.trim();
    if (!key) return null;
    const all = [...this.profiles.values()];
    const hit =
      this.profiles.get(key) ?? all.find((p) => fold(p.personName) === fold(key)) ?? all.find((p) => p.userId === key);
    return hit ? copy(hit) : null;
  }

  /** Without a personId, a profile with the same user id (or else the same name) is updated. */
  async upsert(profile: PersonInput): Promise<PersonProfile> {
    const all = [...this.profiles.values()];
    const existing =
      profile.personId !== undefined
        ? this.profiles.get(profile.personId)
        : ((profile.userId !== null ? all.find((p) => p.userId === profile.userId) : undefined) ??
          all.find((p) => fold(p.personName) === fold(profile.personName)));
    const personId = profile.personId ?? existing?.personId ?? this.newId("person");
    const stored: PersonProfile = { ...copy(profile), personId, updatedAt: this.now() };
    this.profiles.set(personId, stored);
    return copy(stored);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<PersonProfile[]> {
    const all = [...this.profiles.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    return takeFirst(all, opts.limit).map(copy);
  }
}

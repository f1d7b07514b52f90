import type { PageQuery, VersionedUpdate } from "../dashboard";
import type { PersonInput, PersonProfile, PersonStore } from "../persons";
import { copy, takeFirst, type IdSource } from "./support";

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
  async upsert(profile: PersonInput & { personId?: string }): Promise<PersonProfile> {
    const all = [...this.profiles.values()];
    const existing =
      profile.personId !== undefined
        ? this.profiles.get(profile.personId)
        : ((profile.userId !== null ? all.find((p) => p.userId === profile.userId) : undefined) ??
          all.find((p) => fold(p.personName) === fold(profile.personName)));
    const personId = profile.personId ?? existing?.personId ?? this.newId("person");
    const stored: PersonProfile = {
      ...copy(profile),
      personId,
      updatedAt: this.now(),
      version: (this.profiles.get(personId)?.version ?? 0) + 1,
    };
    this.profiles.set(personId, stored);
    return copy(stored);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<PersonProfile[]> {
    return takeFirst(this.sorted(), opts.limit).map(copy);
  }

  async page(query: PageQuery): Promise<PersonProfile[]> {
    const q = fold(query.q ?? "");
    const hits = this.sorted().filter(
      (p) => !q || [p.personName, p.summary, ...p.traits, ...p.facts].some((t) => t.toLowerCase().includes(q)),
    );
    return takeFirst(hits.slice(query.offset ?? 0), query.limit).map(copy);
  }

  async get(personId: string): Promise<PersonProfile | null> {
    const hit = this.profiles.get(personId);
    return hit ? copy(hit) : null;
  }

  async update(
    personId: string,
    patch: Partial<PersonInput>,
    ifVersion: number,
  ): Promise<VersionedUpdate<PersonProfile>> {
    const current = this.profiles.get(personId);
    if (!current) return { status: "missing" };
    if (current.version !== ifVersion) return { status: "conflict", current: copy(current) };
    const next: PersonProfile = {
      ...current,
      ...copy(patch),
      personId,
      updatedAt: this.now(),
      version: current.version + 1,
    };
    this.profiles.set(personId, next);
    return { status: "ok", record: copy(next) };
  }

  async remove(personId: string): Promise<boolean> {
    return this.profiles.delete(personId);
  }

  /** Most recently updated first, ties in insertion order. */
  private sorted(): PersonProfile[] {
    return [...this.profiles.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }
}

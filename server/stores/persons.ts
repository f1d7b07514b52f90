// Person profiles the bot learned (name, traits, facts).
// Implemented in process by ./memory/persons.ts, with Prisma in server/db/stores (shared contract tests).

import type { PageQuery, VersionedUpdate } from "./dashboard";

export interface PersonProfile {
  personId: string;
  personName: string;
  userId: string | null;
  summary: string;
  traits: string[];
  facts: string[];
  updatedAt: number;
  version: number;
}

export type PersonInput = Omit<PersonProfile, "updatedAt" | "personId" | "version">;

export interface PersonStore {
  /** Looks a person up by id, name or user id. */
  find(nameOrId: string): Promise<PersonProfile | null>;
  upsert(profile: PersonInput & { personId?: string }): Promise<PersonProfile>;
  list(opts?: { limit?: number }): Promise<PersonProfile[]>;
  /** Most recently updated first; `q` matches the name, summary, traits or facts. */
  page(query: PageQuery): Promise<PersonProfile[]>;
  get(personId: string): Promise<PersonProfile | null>;
  update(personId: string, patch: Partial<PersonInput>, ifVersion: number): Promise<VersionedUpdate<PersonProfile>>;
  remove(personId: string): Promise<boolean>;
}

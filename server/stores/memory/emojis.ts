import type { EmojiEntry, EmojiRecord, EmojiStore } from "../emojis";
import type { VersionedUpdate } from "../dashboard";
import { copy } from "./support";

const toRecord = ({ id, file, description, emotions }: EmojiEntry): EmojiRecord => ({
  id,
  file,
  description,
  emotions: [...emotions],
});

export class MemoryEmojiStore implements EmojiStore {
  private readonly emojis: EmojiEntry[];

  constructor(seed: readonly EmojiRecord[] = []) {
    this.emojis = seed.map((e) => ({ ...copy(e), disabled: false, version: 1, useCount: 0 }));
  }

  async list(): Promise<EmojiRecord[]> {
    return this.emojis.filter((e) => !e.disabled).map(toRecord);
  }

  /** Unknown ids are ignored, like an UPDATE that matches no row. */
  async recordUse(id: string): Promise<void> {
    const hit = this.emojis.find((e) => e.id === id);
    if (hit) hit.useCount++;
  }

  useCount(id: string): number {
    return this.emojis.find((e) => e.id === id)?.useCount ?? 0;
  }

  async listAll(): Promise<EmojiEntry[]> {
    return this.emojis.map(copy);
  }

  async get(id: string): Promise<EmojiEntry | null> {
    const hit = this.emojis.find((e) => e.id === id);
    return hit ? copy(hit) : null;
  }

  async upsert(rec: EmojiRecord & { disabled?: boolean }): Promise<EmojiEntry> {
    const index = this.emojis.findIndex((e) => e.id === rec.id);
    const current = index === -1 ? undefined : this.emojis[index];
    const next: EmojiEntry = {
      id: rec.id,
      file: rec.file,
      description: rec.description,
      emotions: [...rec.emotions],
      disabled: rec.disabled ?? current?.disabled ?? false,
      version: (current?.version ?? 0) + 1,
      useCount: current?.useCount ?? 0,
    };
    if (index === -1) this.emojis.push(next);
    else this.emojis[index] = next;
    return copy(next);
  }

  async update(
    id: string,
    patch: { description?: string; emotions?: string[]; disabled?: boolean },
    ifVersion: number,
  ): Promise<VersionedUpdate<EmojiEntry>> {
    const index = this.emojis.findIndex((e) => e.id === id);
    if (index === -1) return { status: "missing" };
    const current = this.emojis[index];
    if (current.version !== ifVersion) return { status: "conflict", current: copy(current) };
    const next: EmojiEntry = { ...current, ...copy(patch), id, version: current.version + 1 };
    this.emojis[index] = next;
    return { status: "ok", record: copy(next) };
  }

  async remove(id: string): Promise<boolean> {
    const index = this.emojis.findIndex((e) => e.id === id);
    if (index === -1) return false;
    this.emojis.splice(index, 1);
    return true;
  }
}

import type { EmojiRecord, EmojiStore } from "../types";
import { copy } from "./support";

export class MemoryEmojiStore implements EmojiStore {
  private readonly emojis: EmojiRecord[];
  private readonly uses = new Map<string, number>();

  constructor(seed: readonly EmojiRecord[] = []) {
    this.emojis = seed.map(copy);
  }

  async list(): Promise<EmojiRecord[]> {
    return this.emojis.map(copy);
  }

  /** Unknown ids are ignored, like an UPDATE that matches no row. */
  async recordUse(id: string): Promise<void> {
    if (this.emojis.some((e) => e.id === id)) this.uses.set(id, (this.uses.get(id) ?? 0) + 1);
  }

  useCount(id: string): number {
    return this.uses.get(id) ?? 0;
  }
}

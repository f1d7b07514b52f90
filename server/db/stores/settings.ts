import type { PrismaClient } from "../../../generated/prisma/client";
import type { SettingStore } from "../../stores/settings";
import type { StoreWriter } from "../writer";
import { isUniqueClash } from "./support";

/** Settings changed live, as JSON text per key: what the config file said is overlaid at start. */
export class PrismaSettingStore implements SettingStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async get(key: string): Promise<unknown> {
    const row = await this.prisma.setting.findUnique({ where: { key } });
    if (!row) return undefined;
    try {
      return JSON.parse(row.value) as unknown;
    } catch {
      // Written by set() below; a row edited by hand into bad JSON counts as absent.
      return undefined;
    }
  }

  async set(key: string, value: unknown, ts: number): Promise<void> {
    const data = { value: JSON.stringify(value), updatedAt: ts };
    await this.writer.write(() =>
      this.prisma.setting.upsert({ where: { key }, create: { key, ...data }, update: data }),
    );
  }

  async compareAndSet(key: string, expected: unknown, value: unknown, ts: number): Promise<boolean> {
    const data = { value: JSON.stringify(value), updatedAt: ts };
    return this.writer.write(async () => {
      if (expected === undefined) {
        try {
          await this.prisma.setting.create({ data: { key, ...data } });
          return true;
        } catch (error) {
          // Another writer created the row first.
          if (isUniqueClash(error)) return false;
          throw error;
        }
      }
      // The stored text is what set() wrote, JSON.stringify of a value that get() parsed back: the
      // same text again. The row is locked by the update, so the comparison and the write are one step.
      const { count } = await this.prisma.setting.updateMany({
        where: { key, value: JSON.stringify(expected) },
        data,
      });
      return count === 1;
    });
  }
}

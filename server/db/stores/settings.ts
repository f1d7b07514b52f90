import type { PrismaClient } from "../../../generated/prisma/client";
import type { SettingStore } from "../../stores/types";
import type { StoreWriter } from "../writer";

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
}

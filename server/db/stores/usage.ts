import type { PrismaClient } from "../../../generated/prisma/client";
import type { ModelUsageRecord, UsageStore } from "../../stores/types";
import type { StoreWriter } from "../writer";

/** One row per model call (task, model, tokens, latency). */
export class PrismaUsageStore implements UsageStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async record(rec: ModelUsageRecord): Promise<void> {
    const { task, model, promptTokens, completionTokens, latencyMs, success, ts } = rec;
    await this.writer.write(() =>
      this.prisma.modelUsage.create({ data: { task, model, promptTokens, completionTokens, latencyMs, success, ts } }),
    );
  }

  /** Oldest first; `since` keeps records at or after that time (dashboard totals). */
  async list(opts: { since?: number; limit?: number } = {}): Promise<ModelUsageRecord[]> {
    const rows = await this.prisma.modelUsage.findMany({
      where: opts.since === undefined ? {} : { ts: { gte: opts.since } },
      orderBy: [{ ts: "asc" }, { id: "asc" }],
      ...(opts.limit === undefined ? {} : { take: Math.max(0, Math.floor(opts.limit)) }),
    });
    return rows.map(({ task, model, promptTokens, completionTokens, latencyMs, success, ts }) => ({
      task,
      model,
      promptTokens,
      completionTokens,
      latencyMs,
      success,
      ts,
    }));
  }
}

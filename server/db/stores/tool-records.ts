import type { PrismaClient, ToolRecord as ToolRecordRow } from "../../../generated/prisma/client";
import { toolExecutionResultSchema } from "../../../lib/tools/schemas";
import type { ToolRecord, ToolRecordStore } from "../../stores/tool-records";
import type { StoreWriter } from "../writer";
import { sqlLimit, toJson } from "./support";

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function toRecord(row: ToolRecordRow): ToolRecord {
  const rec: ToolRecord = {
    id: String(row.id),
    sessionId: row.sessionId,
    cycleId: row.cycleId,
    callId: row.callId,
    toolName: row.toolName,
    providerName: row.providerName,
    providerType: row.providerType,
    arguments: row.arguments as Record<string, unknown>, // written from ToolRecord.arguments by record()
    success: row.success,
    content: row.content,
    errorMessage: row.errorMessage,
    reasoning: row.reasoning,
    durationMs: row.durationMs,
    ts: row.ts,
  };
  if (row.structuredContent !== null) rec.structuredContent = JSON.parse(row.structuredContent);
  // A result that no longer reads as one is left out, like one never kept: the record stays readable.
  const result = row.resultJson === null ? undefined : toolExecutionResultSchema.safeParse(parseOrNull(row.resultJson));
  if (result?.success) rec.result = result.data;
  return rec;
}

/** Every tool invocation. */
export class PrismaToolRecordStore implements ToolRecordStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async record(rec: Omit<ToolRecord, "id">): Promise<void> {
    // Fields listed one by one: Prisma rejects unknown keys an engine object might carry.
    const data = {
      sessionId: rec.sessionId,
      cycleId: rec.cycleId,
      callId: rec.callId,
      toolName: rec.toolName,
      providerName: rec.providerName,
      providerType: rec.providerType,
      arguments: toJson(rec.arguments),
      success: rec.success,
      content: rec.content,
      errorMessage: rec.errorMessage,
      structuredContent: rec.structuredContent === undefined ? null : JSON.stringify(rec.structuredContent),
      reasoning: rec.reasoning,
      durationMs: rec.durationMs,
      ts: rec.ts,
      resultJson: rec.result === undefined ? null : JSON.stringify(rec.result),
    };
    await this.writer.write(() => this.prisma.toolRecord.create({ data }));
  }

  /** Oldest first, like the message store; `limit` keeps the newest ones. */
  async list(sessionId: string, opts: { limit?: number } = {}): Promise<ToolRecord[]> {
    const limit = sqlLimit(opts.limit);
    if (limit === 0) return [];
    const rows = await this.prisma.toolRecord.findMany({
      where: { sessionId },
      orderBy: [{ ts: "desc" }, { id: "desc" }],
      ...(limit > 0 ? { take: limit } : {}),
    });
    return rows.reverse().map(toRecord);
  }
}

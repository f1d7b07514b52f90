import type { ModelCall as ModelCallRow, Prisma, PrismaClient } from "../../../generated/prisma/client";
import type { ModelTask } from "../../../lib/llm/messages";
import type { ModelCall, RecordedRequest, RecordedResponse } from "../../../lib/rerun/cassette";
import type { ModelCallPage, ModelCallStore } from "../../stores/model-calls";
import type { StoreWriter } from "../writer";
import { rowId, sqlLimit } from "./support";

function toCall(row: ModelCallRow): ModelCall {
  return {
    id: String(row.id),
    sessionId: row.sessionId,
    cycleId: row.cycleId,
    task: row.task as ModelTask, // written from ModelCall.task by record()
    model: row.model,
    endpoint: row.endpoint,
    request: JSON.parse(row.request) as RecordedRequest, // written by record()
    response: row.response === null ? null : (JSON.parse(row.response) as RecordedResponse), // likewise
    error: row.error,
    aborted: row.aborted,
    startedAt: row.startedAt,
    durationMs: row.durationMs,
  };
}

/** Every model call of a session (the cassette a re-run answers from); the id keeps the recording order. */
export class PrismaModelCallStore implements ModelCallStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async record(call: Omit<ModelCall, "id">): Promise<void> {
    // Fields listed one by one: Prisma rejects unknown keys a caller's object might carry.
    const data = {
      sessionId: call.sessionId,
      cycleId: call.cycleId,
      task: call.task,
      model: call.model,
      endpoint: call.endpoint,
      request: JSON.stringify(call.request),
      response: call.response === null ? null : JSON.stringify(call.response),
      error: call.error,
      aborted: call.aborted,
      startedAt: call.startedAt,
      durationMs: call.durationMs,
    };
    await this.writer.write(() => this.prisma.modelCall.create({ data }));
  }

  /** A page is read off the (sessionId, startedAt) index from its cursor: (startedAt, id) after the last one. */
  async list(sessionId: string, page: ModelCallPage = {}): Promise<ModelCall[]> {
    const limit = sqlLimit(page.limit);
    if (limit === 0) return [];
    const { after } = page;
    const id = after ? rowId(after.id) : null;
    let where: Prisma.ModelCallWhereInput = { sessionId };
    if (after) {
      const later = { startedAt: { gt: after.startedAt } };
      where = { sessionId, OR: id === null ? [later] : [later, { startedAt: after.startedAt, id: { gt: id } }] };
    }
    const rows = await this.prisma.modelCall.findMany({
      where,
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      ...(limit > 0 ? { take: limit } : {}),
    });
    return rows.map(toCall);
  }
}

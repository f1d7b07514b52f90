import type { PrismaClient, ToggleAudit } from "../../../generated/prisma/client";
import type { AuditActor } from "../../stores/audit";
import type { ToggleAuditEntry, ToggleStore, ToolToggle } from "../../stores/toggles";
import type { StoreWriter } from "../writer";
import { fromSessionKey, sqlLimit, toSessionKey } from "./support";

interface ToggleRow {
  toolName: string;
  scope: string;
  sessionId: string;
  enabled: bigint | number;
}

const scopeOf = (s: string): ToolToggle["scope"] => (s === "session" ? "session" : "global");

const toAuditEntry = (r: ToggleAudit): ToggleAuditEntry => ({
  id: String(r.id),
  toolName: r.toolName,
  scope: scopeOf(r.scope),
  sessionId: r.sessionId,
  enabled: r.enabled,
  actor: r.actor,
  actorId: r.actorId,
  reason: r.reason,
  oldEnabled: r.oldEnabled,
  ts: r.ts,
});

/** Tool switches (global, or per session) and their audit trail, written together. */
export class PrismaToggleStore implements ToggleStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  /** In the order the toggles were first set. */
  async list(): Promise<ToolToggle[]> {
    const rows = await this.prisma.$queryRaw<ToggleRow[]>`
      SELECT "toolName", "scope", "sessionId", "enabled" FROM "ToolToggle" ORDER BY rowid`;
    return rows.map((r) => ({
      toolName: r.toolName,
      scope: scopeOf(r.scope),
      sessionId: r.scope === "session" ? fromSessionKey(r.sessionId) : null,
      enabled: Boolean(r.enabled),
    }));
  }

  /** Writes the toggle and its audit entry in one transaction; the entry carries the previous value. */
  async set(toggle: ToolToggle, actor: AuditActor, reason: string, ts: number): Promise<ToggleAuditEntry> {
    const sessionId = toggle.scope === "session" ? toggle.sessionId : null;
    const key = { toolName: toggle.toolName, scope: toggle.scope, sessionId: toSessionKey(sessionId) };
    const row = await this.writer.write(() =>
      this.prisma.$transaction(async (tx) => {
        const old = await tx.toolToggle.findUnique({
          where: { toolName_scope_sessionId: key },
          select: { enabled: true },
        });
        await tx.toolToggle.upsert({
          where: { toolName_scope_sessionId: key },
          create: { ...key, enabled: toggle.enabled, updatedAt: ts },
          update: { enabled: toggle.enabled, updatedAt: ts },
        });
        return tx.toggleAudit.create({
          data: {
            toolName: toggle.toolName,
            scope: toggle.scope,
            sessionId,
            enabled: toggle.enabled,
            oldEnabled: old?.enabled ?? null,
            actor: actor.name,
            actorId: actor.id,
            reason,
            ts,
          },
        });
      }),
    );
    return toAuditEntry(row);
  }

  /** Newest first. */
  async audit(opts: { limit?: number } = {}): Promise<ToggleAuditEntry[]> {
    const limit = sqlLimit(opts.limit);
    if (limit === 0) return [];
    const rows = await this.prisma.toggleAudit.findMany({
      orderBy: [{ ts: "desc" }, { id: "desc" }],
      ...(limit > 0 ? { take: limit } : {}),
    });
    return rows.map(toAuditEntry);
  }
}

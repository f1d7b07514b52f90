import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { AccountRecord, AccountRole, AccountStore } from "../../stores/accounts";
import type { AuditFilter, AuditRecord, AuditStore } from "../../stores/audit";
import type { SqlDialect } from "../client";
import type { StoreWriter } from "../writer";
import { containsIgnoringCase } from "./support";

const roleOf = (role: string): AccountRole => (role === "admin" || role === "operator" ? role : "viewer");

/** Named accounts; name and token hash are unique indexes. */
export class PrismaAccountStore implements AccountStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async list(): Promise<AccountRecord[]> {
    const rows = await this.prisma.account.findMany({ orderBy: { createdAt: "asc" } });
    return rows.map((r) => ({ ...r, role: roleOf(r.role) }));
  }

  async create(account: AccountRecord): Promise<boolean> {
    return this.unlessTaken(() => this.prisma.account.create({ data: account }));
  }

  async update(account: AccountRecord): Promise<boolean> {
    const { id, ...data } = account;
    return this.unlessTaken(async () => {
      const { count } = await this.prisma.account.updateMany({ where: { id }, data });
      if (count === 0) throw new NotFound();
    });
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.account.deleteMany({ where: { id } }));
    return count > 0;
  }

  /** A unique-index clash (P2002) or a missing row answers false; other failures throw. */
  private async unlessTaken(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.writer.write(write);
      return true;
    } catch (error) {
      if (error instanceof NotFound) return false;
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return false;
      throw error;
    }
  }
}

class NotFound extends Error {}

/** The audit trail of every operator change; before/after as JSON text. */
export class PrismaAuditStore implements AuditStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
    private readonly dialect: SqlDialect,
  ) {}

  async append(entry: Omit<AuditRecord, "id">): Promise<AuditRecord> {
    const row = await this.writer.write(() =>
      this.prisma.auditEntry.create({
        data: {
          at: entry.at,
          actorId: entry.actor.id,
          actorName: entry.actor.name,
          action: entry.action,
          target: entry.target,
          before: JSON.stringify(entry.before ?? null),
          after: JSON.stringify(entry.after ?? null),
          reason: entry.reason,
        },
      }),
    );
    return { ...entry, id: String(row.id), before: entry.before ?? null, after: entry.after ?? null };
  }

  async query(filter: AuditFilter): Promise<AuditRecord[]> {
    const at = {
      ...(filter.from !== undefined ? { gte: filter.from } : {}),
      ...(filter.to !== undefined ? { lt: filter.to } : {}),
    };
    const rows = await this.prisma.auditEntry.findMany({
      where: {
        ...(filter.beforeId !== undefined ? { id: { lt: filter.beforeId } } : {}),
        ...(filter.actor !== undefined ? { OR: [{ actorId: filter.actor }, { actorName: filter.actor }] } : {}),
        ...(filter.action !== undefined ? { action: filter.action } : {}),
        ...(filter.target !== undefined ? { target: containsIgnoringCase(this.dialect, filter.target) } : {}),
        ...(Object.keys(at).length ? { at } : {}),
      },
      orderBy: { id: "desc" },
      take: filter.limit,
    });
    return rows.map((r) => ({
      id: String(r.id),
      at: r.at,
      actor: { id: r.actorId, name: r.actorName },
      action: r.action,
      target: r.target,
      before: parseJson(r.before),
      after: parseJson(r.after),
      reason: r.reason,
    }));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

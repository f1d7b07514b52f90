import type { PrismaClient } from "../../../generated/prisma/client";
import type { LoginSessionRow, LoginSessionStore } from "../../auth/login-sessions";
import type { StoreWriter } from "../writer";

/** Dashboard logins (hashes and expiry only), so a restart keeps operators logged in. */
export class PrismaLoginSessionStore implements LoginSessionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async loadActive(now: number): Promise<LoginSessionRow[]> {
    await this.writer.write(() => this.prisma.loginSession.deleteMany({ where: { expiresAt: { lte: now } } }));
    return this.prisma.loginSession.findMany({ orderBy: { createdAt: "asc" } });
  }

  async save(row: LoginSessionRow): Promise<void> {
    await this.writer.write(() => this.prisma.loginSession.create({ data: row }));
  }

  async remove(idHash: string): Promise<void> {
    await this.writer.write(() => this.prisma.loginSession.deleteMany({ where: { idHash } }));
  }
}

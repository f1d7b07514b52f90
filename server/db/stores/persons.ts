import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { PersonProfile, PersonStore } from "../../stores/types";
import type { StoreWriter } from "../writer";
import { fold, sqlLimit, toStringList, type StoreContext } from "./support";

type PersonInput = Omit<PersonProfile, "updatedAt" | "personId"> & { personId?: string };

interface PersonRow {
  personId: string;
  personName: string;
  userId: string | null;
  summary: string;
  traits: string;
  facts: string;
  updatedAt: number;
}

const toProfile = (r: PersonRow): PersonProfile => ({
  personId: r.personId,
  personName: r.personName,
  userId: r.userId,
  summary: r.summary,
  traits: toStringList(JSON.parse(r.traits)),
  facts: toStringList(JSON.parse(r.facts)),
  updatedAt: r.updatedAt,
});

/** Person profiles. Names compare case-insensitively through `nameKey`; ties go to the oldest row. */
export class PrismaPersonStore implements PersonStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly ctx: StoreContext,
    private readonly writer: StoreWriter,
  ) {}

  /** By person id first, then by name (case-insensitive), then by platform user id. */
  async find(nameOrId: string): Promise<PersonProfile | null> {
    const key = nameOrId.trim();
    if (!key) return null;
    for (const where of [
      Prisma.sql`"personId" = ${key}`,
      Prisma.sql`"nameKey" = ${fold(key)}`,
      Prisma.sql`"userId" = ${key}`,
    ]) {
      const [row] = await this.select(where, 1);
      if (row) return row;
    }
    return null;
  }

  /** Without a personId, a profile with the same user id (or else the same name) is updated. */
  async upsert(profile: PersonInput): Promise<PersonProfile> {
    return this.writer.write(() =>
      this.prisma.$transaction(async (tx) => {
        const firstId = async (where: Prisma.Sql) =>
          (
            await tx.$queryRaw<
              { personId: string }[]
            >`SELECT "personId" FROM "Person" WHERE ${where} ORDER BY rowid LIMIT 1`
          )[0]?.personId;
        const existing =
          profile.personId ??
          (profile.userId !== null ? await firstId(Prisma.sql`"userId" = ${profile.userId}`) : undefined) ??
          (await firstId(Prisma.sql`"nameKey" = ${fold(profile.personName)}`));
        const personId = existing ?? this.ctx.newId("person");
        const data = {
          personName: profile.personName,
          nameKey: fold(profile.personName),
          userId: profile.userId,
          summary: profile.summary,
          traits: profile.traits,
          facts: profile.facts,
          updatedAt: this.ctx.now(),
        };
        await tx.person.upsert({ where: { personId }, create: { personId, ...data }, update: data });
        return {
          ...profile,
          personId,
          traits: [...profile.traits],
          facts: [...profile.facts],
          updatedAt: data.updatedAt,
        };
      }),
    );
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<PersonProfile[]> {
    return this.select(Prisma.sql`1`, sqlLimit(opts.limit), Prisma.sql`"updatedAt" DESC, rowid`);
  }

  private async select(
    where: Prisma.Sql,
    limit: number,
    order: Prisma.Sql = Prisma.sql`rowid`,
  ): Promise<PersonProfile[]> {
    const rows = await this.prisma.$queryRaw<PersonRow[]>`
      SELECT "personId", "personName", "userId", "summary", CAST("traits" AS TEXT) AS "traits",
             CAST("facts" AS TEXT) AS "facts", "updatedAt"
      FROM "Person" WHERE ${where} ORDER BY ${order} LIMIT ${limit}`;
    return rows.map(toProfile);
  }
}

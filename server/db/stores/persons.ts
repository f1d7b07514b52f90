import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { PageQuery, VersionedUpdate } from "../../stores/dashboard";
import type { PersonInput, PersonProfile, PersonStore } from "../../stores/persons";
import type { StoreWriter } from "../writer";
import { escapeLike, fold, sqlPage, sqlTrue, toStringList, type StoreContext } from "./support";

interface PersonRow {
  personId: string;
  personName: string;
  userId: string | null;
  summary: string;
  traits: string;
  facts: string;
  updatedAt: number;
  version: bigint | number;
}

const toProfile = (r: PersonRow): PersonProfile => ({
  personId: r.personId,
  personName: r.personName,
  userId: r.userId,
  summary: r.summary,
  traits: toStringList(JSON.parse(r.traits)),
  facts: toStringList(JSON.parse(r.facts)),
  updatedAt: r.updatedAt,
  version: Number(r.version),
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
  async upsert(profile: PersonInput & { personId?: string }): Promise<PersonProfile> {
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
        const row = await tx.person.upsert({
          where: { personId },
          create: { personId, ...data },
          update: { ...data, version: { increment: 1 } },
        });
        return {
          ...profile,
          personId,
          traits: [...profile.traits],
          facts: [...profile.facts],
          updatedAt: data.updatedAt,
          version: row.version,
        };
      }),
    );
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<PersonProfile[]> {
    return this.select(sqlTrue, opts.limit, Prisma.sql`"updatedAt" DESC, rowid`);
  }

  async page(query: PageQuery): Promise<PersonProfile[]> {
    const q = fold(query.q ?? "");
    const like = `%${escapeLike(q)}%`;
    const text = [`"personName"`, `"summary"`, `CAST("traits" AS TEXT)`, `CAST("facts" AS TEXT)`].map(
      (column) => Prisma.sql`lower(${Prisma.raw(column)}) LIKE ${like} ESCAPE '\\'`,
    );
    const where = q ? Prisma.sql`(${Prisma.join(text, " OR ")})` : sqlTrue;
    return this.select(where, query.limit, Prisma.sql`"updatedAt" DESC, rowid`, query.offset);
  }

  async get(personId: string): Promise<PersonProfile | null> {
    const [row] = await this.select(Prisma.sql`"personId" = ${personId}`, 1);
    return row ?? null;
  }

  /** Compare-and-set on the version inside the write, so two edits of one version cannot both win. */
  async update(
    personId: string,
    patch: Partial<PersonInput>,
    ifVersion: number,
  ): Promise<VersionedUpdate<PersonProfile>> {
    const { count } = await this.writer.write(() =>
      this.prisma.person.updateMany({
        where: { personId, version: ifVersion },
        data: {
          ...patch,
          ...(patch.personName !== undefined ? { nameKey: fold(patch.personName) } : {}),
          updatedAt: this.ctx.now(),
          version: { increment: 1 },
        },
      }),
    );
    const current = await this.get(personId);
    if (!current) return { status: "missing" };
    return count > 0 ? { status: "ok", record: current } : { status: "conflict", current };
  }

  async remove(personId: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.person.deleteMany({ where: { personId } }));
    return count > 0;
  }

  private async select(
    where: Prisma.Sql,
    limit: number | undefined,
    order: Prisma.Sql = Prisma.sql`rowid`,
    offset?: number,
  ): Promise<PersonProfile[]> {
    const rows = await this.prisma.$queryRaw<PersonRow[]>`
      SELECT "personId", "personName", "userId", "summary", CAST("traits" AS TEXT) AS "traits",
             CAST("facts" AS TEXT) AS "facts", "updatedAt", "version"
      FROM "Person" WHERE ${where} ORDER BY ${order} ${sqlPage(limit, offset)}`;
    return rows.map(toProfile);
  }
}

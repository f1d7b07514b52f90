// The account and audit stores, Prisma-backed and in-process, against the same expectations: unique
// names and token hashes, replace-by-id, and the audit's newest-first filters and cursor.
import { describe, expect, it } from "vitest";
import { createPrismaStores } from "../../server/db/stores";
import { MemoryAccountStore } from "../../server/stores/memory/accounts";
import { MemoryAuditStore } from "../../server/stores/memory/audit";
import type { AccountRecord, AccountStore } from "../../server/stores/accounts";
import type { AuditStore } from "../../server/stores/audit";
import { backends } from "./helpers";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);

const implementations: [string, () => Promise<{ accounts: AccountStore; audit: AuditStore }>][] = [
  ["memory", async () => ({ accounts: new MemoryAccountStore(), audit: new MemoryAuditStore() })],
  ...databases.map(([name, db]): [string, () => Promise<{ accounts: AccountStore; audit: AuditStore }>] => [
    `prisma on ${name}`,
    async () => {
      const stores = createPrismaStores((await db.prisma()).prisma);
      return { accounts: stores.accounts, audit: stores.audit };
    },
  ]),
];

const account = (id: string, name: string, extra: Partial<AccountRecord> = {}): AccountRecord => ({
  id,
  name,
  role: "viewer",
  passwordHash: null,
  tokenHash: `hash-${id}`,
  createdAt: 1,
  disabledAt: null,
  ...extra,
});

describe.each(implementations)("%s account and audit stores", (_name, make) => {
  it("keeps names and token hashes unique and replaces an account by id", async () => {
    const { accounts } = await make();
    expect(await accounts.create(account("a", "alice"))).toBe(true);
    expect(await accounts.create(account("b", "alice"))).toBe(false);
    expect(await accounts.create(account("c", "carol", { tokenHash: "hash-a" }))).toBe(false);
    expect(await accounts.create(account("d", "dave", { tokenHash: null }))).toBe(true);
    expect(await accounts.create(account("e", "erin", { tokenHash: null }))).toBe(true);
    expect(await accounts.update(account("a", "alice", { role: "admin", disabledAt: 5 }))).toBe(true);
    expect(await accounts.update(account("d", "alice"))).toBe(false);
    expect(await accounts.update(account("ghost", "ghost"))).toBe(false);
    const list = await accounts.list();
    expect(list.find((a) => a.id === "a")).toEqual(account("a", "alice", { role: "admin", disabledAt: 5 }));
    expect(list.map((a) => a.name).sort()).toEqual(["alice", "dave", "erin"]);
    expect(await accounts.remove("a")).toBe(true);
    expect(await accounts.remove("a")).toBe(false);
  });

  it("answers audit entries newest first, filtered, paged by id", async () => {
    const { audit } = await make();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const entry = await audit.append({
        at: 100 + i,
        actor: { id: i % 2 ? "u1" : "u2", name: i % 2 ? "one" : "two" },
        action: i < 3 ? "tool.toggle" : "account.create",
        target: `Tool:item-${i}`,
        before: i === 0 ? null : { n: i - 1 },
        after: { n: i, text: "<b>x</b>" },
        reason: `r${i}`,
      });
      ids.push(entry.id);
    }
    const all = await audit.query({ limit: 10 });
    expect(all.map((e) => e.reason)).toEqual(["r5", "r4", "r3", "r2", "r1", "r0"]);
    expect(all[0]).toMatchObject({ actor: { id: "u1", name: "one" }, after: { n: 5, text: "<b>x</b>" } });
    expect(all[5].before).toBeNull();
    const reasons = async (filter: Parameters<AuditStore["query"]>[0]) =>
      (await audit.query(filter)).map((e) => e.reason);
    expect(await reasons({ actor: "one", limit: 10 })).toEqual(["r5", "r3", "r1"]);
    expect(await reasons({ actor: "u2", action: "tool.toggle", limit: 10 })).toEqual(["r2", "r0"]);
    expect(await reasons({ target: "tool:item-4", limit: 10 })).toEqual(["r4"]);
    expect(await reasons({ from: 102, to: 104, limit: 10 })).toEqual(["r3", "r2"]);
    expect(await reasons({ beforeId: Number(ids[3]), limit: 2 })).toEqual(["r2", "r1"]);
  });
});

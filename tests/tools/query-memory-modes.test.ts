// query_memory's episode, aggregate and hybrid modes over the in-process memory store: each gives
// a different answer from plain search on the same memories.
import { describe, expect, it } from "vitest";
import type { ToolExecutionContext } from "../../lib/tools/schemas";
import { BuiltinToolProvider } from "../../server/tools/builtin/provider";
import { invocation } from "../support/tool-invocation";
import { FakeHost } from "./fake-host";

const ctx: ToolExecutionContext = { sessionId: "s1", streamId: "s1", reasoning: "", metadata: {} };
const at = (h: number, m = 0, day = 1) => new Date(2026, 0, day, h, m).getTime();

async function seeded() {
  const host = new FakeHost();
  const provider = new BuiltinToolProvider(host, { random: () => 0 });
  const add = (sessionId: string | null, personName: string | null, content: string, ts: number) =>
    host.stores.memories.add({ sessionId, personName, content, ts });
  await add("s1", null, "大家聊起了周末计划", at(10, 0));
  await add("s1", "Alice", "Alice 说周六去爬山", at(10, 5));
  await add("s1", "Bob", "Bob 说要带上相机", at(10, 10));
  await add("s1", null, "很久以后又聊到爬山装备打折", at(14, 0));
  await add("other", null, "别的群也在说爬山", at(10, 6));
  await add("s1", "Alice", "Alice 第二天说腿好酸", at(9, 0, 2));
  await add("s1", "Bob", "Bob 发了照片", at(9, 30, 2));
  const run = (args: Record<string, unknown>) => provider.invoke(invocation("query_memory", args), ctx);
  return { run };
}

type Structured = Record<string, unknown>;

describe("query_memory modes", () => {
  it("episode returns each hit with the memories around it in the same chat", async () => {
    const { run } = await seeded();
    const result = await run({ query: "爬山", mode: "episode" });
    expect(result.success).toBe(true);
    const episodes = (result.structuredContent as Structured).episodes as { items: { content: string }[] }[];
    const contents = episodes.map((e) => e.items.map((m) => m.content));
    expect(contents).toContainEqual(["大家聊起了周末计划", "Alice 说周六去爬山", "Bob 说要带上相机"]);
    expect(contents).toContainEqual(["很久以后又聊到爬山装备打折"]);
    expect(contents).toHaveLength(2);
    expect(JSON.stringify(contents)).not.toContain("别的群");
    expect(result.content).toContain("找到 2 段相关记忆");
    // Plain search finds only the two hits, without their context.
    const plain = await run({ query: "爬山" });
    expect((plain.structuredContent as Structured).items).toHaveLength(2);
    expect(plain.content).not.toContain("相机");
  });

  it("aggregate counts memories per person and per day in the range", async () => {
    const { run } = await seeded();
    const result = await run({ mode: "aggregate", time_start: "2026-01-01", time_end: "2026-01-02 23:59" });
    const data = result.structuredContent as {
      total: number;
      byPerson: { personName: string | null; count: number; latest: { content: string } }[];
      byDay: { day: string; count: number }[];
    };
    expect(data.total).toBe(6);
    expect(data.byDay).toEqual([
      { day: "2026-01-01", count: 4 },
      { day: "2026-01-02", count: 2 },
    ]);
    const alice = data.byPerson.find((p) => p.personName === "Alice");
    expect(alice).toMatchObject({ count: 2, latest: { content: "Alice 第二天说腿好酸" } });
    expect(data.byPerson.find((p) => p.personName === null)?.count).toBe(2);
    expect(result.content).toContain("共 6 条记忆");
    expect(result.content).toContain("2026-01-02：2 条");
    // With a person filter the counts narrow to that person.
    const bob = await run({ mode: "aggregate", person_name: "bob", time_start: "2026-01-01" });
    expect((bob.structuredContent as Structured).total).toBe(2);
  });

  it("hybrid merges full-text hits with the most recent memories, newest first", async () => {
    const { run } = await seeded();
    const result = await run({ query: "计划", mode: "hybrid", limit: 3 });
    const items = ((result.structuredContent as Structured).items as { content: string }[]).map((m) => m.content);
    // The one hit (oldest of all) plus the two most recent memories.
    expect(items).toEqual(["Bob 发了照片", "Alice 第二天说腿好酸", "大家聊起了周末计划"]);
    const plain = await run({ query: "计划", limit: 3 });
    expect((plain.structuredContent as Structured).items).toHaveLength(1);
  });
});

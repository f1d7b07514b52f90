// The Prisma-backed stores against the in-process ones: the same scenarios, the same expectations, so
// the engine sees no difference between them.
import { describe, expect, it } from "vitest";
import type { ModelCall } from "../../lib/rerun/cassette";
import type { SessionOrigin } from "../../lib/rerun/schemas";
import type { ToolExecutionResult } from "../../lib/tools/schemas";
import { createPrismaStores } from "../../server/db/stores";
import { createMemoryStores } from "../../server/stores/memory";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { EmojiRecord } from "../../server/stores/emojis";
import type { SessionPageQuery, SessionStore } from "../../server/stores/sessions";
import type { Stores } from "../../server/stores/types";
import type { ToolRecord } from "../../server/stores/tool-records";
import { backends } from "./helpers";
import { usageRecord } from "../support/usage-record";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);

type CommonStores = Omit<Stores, "sessions">;

interface Harness {
  stores: CommonStores;
  /** Moves the stores' clock (updatedAt fields). */
  tick(ms?: number): void;
  /** Puts emoji in the library (seed for the in-process store, editing path for Prisma). */
  addEmojis(list: EmojiRecord[]): Promise<CommonStores>;
}

function clock() {
  let t = 1_000;
  return { now: () => t, tick: (ms = 1) => void (t += ms) };
}

const implementations: [string, () => Promise<Harness>][] = [
  [
    "memory",
    async () => {
      const c = clock();
      let stores: CommonStores = createMemoryStores({ now: c.now });
      return {
        get stores() {
          return stores;
        },
        tick: c.tick,
        async addEmojis(list) {
          stores = createMemoryStores({ now: c.now, emojis: list });
          return stores;
        },
      };
    },
  ],
  ...databases.map(([name, db]): [string, () => Promise<Harness>] => [
    `prisma on ${name}`,
    async () => {
      const c = clock();
      const { prisma } = await db.prisma();
      const stores = createPrismaStores(prisma, { now: c.now });
      return {
        stores,
        tick: c.tick,
        async addEmojis(list) {
          for (const e of list) await stores.emojis.upsert(e);
          return stores;
        },
      };
    },
  ]),
];

const msg = (over: Partial<ChatMessageRecord> & Pick<ChatMessageRecord, "messageId" | "ts">): ChatMessageRecord => ({
  sessionId: "s1",
  direction: "inbound",
  userId: "u1",
  userName: "Alice",
  text: `text of ${over.messageId}`,
  ...over,
});

describe.each(implementations)("%s stores", (name, make) => {
  describe("messages", () => {
    it("never refuses text with U+0000 (Postgres, which cannot store it, keeps U+FFFD in its place)", async () => {
      const { stores } = await make();
      const nul = "a\u0000b";
      const kept = name.endsWith("Postgres") ? "a\uFFFDb" : nul;
      await stores.messages.save(msg({ messageId: nul, ts: 1, text: nul, forward: [{ sender: nul, text: "x" }] }));
      expect(await stores.messages.get("s1", nul)).toMatchObject({
        messageId: kept,
        text: kept,
        forward: [{ sender: kept, text: "x" }],
      });
      expect((await stores.messages.list("s1")).map((m) => m.text)).toEqual([kept]);
      const memory = await stores.memories.add({ sessionId: null, personName: nul, content: `${nul} c`, ts: 1 });
      expect(await stores.memories.get(memory.id)).toMatchObject({ personName: kept, content: `${kept} c` });
    });

    it("round-trips every field, complex content included", async () => {
      const { stores } = await make();
      const full = msg({
        messageId: "m1",
        ts: 10,
        groupCard: "小爱",
        forward: [
          { sender: "Bob", text: "第一条" },
          { sender: "Carol", text: "second" },
        ],
        atBot: true,
        mentionsBot: false,
        replyTo: "m0",
        kind: "text",
        platform: "qq",
        images: [{ url: "https://example.test/a.png", file: "a.png" }, { file: "b.image" }],
      });
      await stores.messages.save(full);
      await stores.messages.save(msg({ messageId: "m2", ts: 11, direction: "outbound", replyTo: null, kind: "emoji" }));
      expect(await stores.messages.get("s1", "m1")).toEqual(full);
      const sent = await stores.messages.get("s1", "m2");
      expect(sent?.direction).toBe("outbound");
      expect(sent?.replyTo ?? null).toBeNull();
      expect(await stores.messages.get("s1", "missing")).toBeNull();
      expect(await stores.messages.get("other", "m1")).toBeNull();
    });

    it("lists oldest first by time then arrival (the latest save); limit keeps the newest; saving again replaces", async () => {
      const { stores } = await make();
      await stores.messages.save(msg({ messageId: "b", ts: 20 }));
      await stores.messages.save(msg({ messageId: "a", ts: 10 }));
      await stores.messages.save(msg({ messageId: "c", ts: 20 }));
      await stores.messages.save(msg({ messageId: "x", ts: 5, sessionId: "s2" }));
      await stores.messages.save(msg({ messageId: "b", ts: 20, text: "edited" }));
      const ids = async (limit?: number) => (await stores.messages.list("s1", { limit })).map((m) => m.messageId);
      expect(await ids()).toEqual(["a", "c", "b"]);
      expect(await ids(2)).toEqual(["c", "b"]);
      expect(await ids(0)).toEqual([]);
      expect((await stores.messages.get("s1", "b"))?.text).toBe("edited");
      expect((await stores.messages.list("s2")).map((m) => m.messageId)).toEqual(["x"]);
    });

    it("save resolves with the store position; listInboundAfter follows it, inbound only", async () => {
      const { stores } = await make();
      const position = async (m: ChatMessageRecord) => (await stores.messages.save(m)).position;
      const b = await position(msg({ messageId: "b", ts: 20 }));
      const a = await position(msg({ messageId: "a", ts: 10 }));
      await stores.messages.save(msg({ messageId: "x", ts: 5, sessionId: "s2" }));
      const sent = await position(msg({ messageId: "o", ts: 30, direction: "outbound" }));
      const c = await position(msg({ messageId: "c", ts: 1 }));
      expect(a).toBeGreaterThan(b);
      expect(sent).toBeGreaterThan(a);
      expect(c).toBeGreaterThan(sent);
      const after = async (position: number) =>
        (await stores.messages.listInboundAfter("s1", position)).map((p) => [p.message.messageId, p.position]);
      expect(await after(0)).toEqual([
        ["b", b],
        ["a", a],
        ["c", c],
      ]);
      expect(await after(b)).toEqual([
        ["a", a],
        ["c", c],
      ]);
      expect(await after(c)).toEqual([]);
      // Saving again (a retry after a failover) replaces the row at a new position, after every other:
      // a restore from a snapshot taken since then finds it (recovery.ts).
      const again = await position(msg({ messageId: "b", ts: 20, text: "edited" }));
      expect(again).toBeGreaterThan(c);
      expect(await after(c)).toEqual([["b", again]]);
      expect((await stores.messages.get("s1", "b"))?.text).toBe("edited");
      expect((await stores.messages.list("s1")).map((m) => m.messageId)).toEqual(["c", "a", "b", "o"]);
    });

    it("marks a message recalled once; the recall survives saving it again and is listed by recalledAmong", async () => {
      const { stores } = await make();
      await stores.messages.save(msg({ messageId: "a", ts: 1 }));
      await stores.messages.save(msg({ messageId: "b", ts: 2 }));
      await stores.messages.save(msg({ messageId: "a", ts: 1, sessionId: "s2" }));
      expect((await stores.messages.get("s1", "a"))?.recalled).toBeUndefined();
      expect(await stores.messages.markRecalled("s1", "a")).toBe(true);
      expect(await stores.messages.markRecalled("s1", "a")).toBe(false);
      expect(await stores.messages.markRecalled("s1", "missing")).toBe(false);
      expect((await stores.messages.get("s1", "a"))?.recalled).toBe(true);
      expect((await stores.messages.get("s2", "a"))?.recalled).toBeUndefined();
      expect(await stores.messages.save(msg({ messageId: "a", ts: 1, text: "edited" }))).toMatchObject({
        recalled: true,
      });
      expect(await stores.messages.get("s1", "a")).toMatchObject({ text: "edited", recalled: true });
      expect((await stores.messages.save(msg({ messageId: "b", ts: 2 }))).recalled).toBe(false);
      expect(await stores.messages.recalledAmong("s1", ["a", "b", "missing"])).toEqual(new Set(["a"]));
      expect(await stores.messages.recalledAmong("s2", ["a"])).toEqual(new Set());
      expect(await stores.messages.recalledAmong("s1", [])).toEqual(new Set());
    });
  });

  describe("emojis", () => {
    it("lists the library in order; recordUse ignores unknown ids", async () => {
      const h = await make();
      const list: EmojiRecord[] = [
        { id: "e-z", file: "emoji/z.png", description: "最后加的", emotions: ["开心"] },
        { id: "e-a", file: "emoji/a.png", description: "second", emotions: ["sad", "tired"] },
      ];
      const stores = await h.addEmojis(list);
      expect(await stores.emojis.list()).toEqual(list);
      await stores.emojis.recordUse("e-a");
      await expect(stores.emojis.recordUse("nope")).resolves.toBeUndefined();
    });

    it("edits with the version it started from; a disabled emoji is left out of list(); removes by id", async () => {
      const h = await make();
      const stores = await h.addEmojis([
        { id: "e-1", file: "emoji/1.png", description: "one", emotions: ["开心"] },
        { id: "e-2", file: "emoji/2.png", description: "two", emotions: ["sad"] },
      ]);
      const e = stores.emojis;
      await e.recordUse("e-1");
      const [first] = await e.listAll();
      expect(first).toMatchObject({ id: "e-1", disabled: false, useCount: 1 });
      const off = await e.update("e-1", { disabled: true, emotions: ["无语"] }, first.version);
      expect(off).toMatchObject({
        status: "ok",
        record: { disabled: true, emotions: ["无语"], version: first.version + 1 },
      });
      const stale = await e.update("e-1", { description: "late" }, first.version);
      expect(stale).toMatchObject({ status: "conflict", current: { description: "one", disabled: true } });
      expect(await e.update("nope", { disabled: false }, 1)).toEqual({ status: "missing" });
      expect((await e.list()).map((x) => x.id)).toEqual(["e-2"]);
      expect((await e.listAll()).map((x) => x.id)).toEqual(["e-1", "e-2"]);
      const added = await e.upsert({ id: "e-3", file: "emoji/u-3.png", description: "three", emotions: ["x"] });
      expect(added).toMatchObject({ id: "e-3", disabled: false, version: 1, useCount: 0 });
      expect(await e.get("e-3")).toEqual(added);
      expect(await e.get("nope")).toBeNull();
      expect(await e.remove("e-3")).toBe(true);
      expect(await e.remove("e-3")).toBe(false);
      expect((await e.list()).map((x) => x.id)).toEqual(["e-2"]);
    });
  });

  describe("jargon", () => {
    it("upserts by case-insensitive word per scope: meaning replaced, count grows", async () => {
      const h = await make();
      const j = h.stores.jargon;
      const first = await j.upsert({ word: " YYDS ", meaning: "永远的神", sessionId: null });
      expect(first).toMatchObject({ word: "YYDS", meaning: "永远的神", sessionId: null, count: 1, updatedAt: 1_000 });
      h.tick();
      const again = await j.upsert({ word: "yyds", meaning: "forever god", sessionId: null });
      expect(again).toMatchObject({ id: first.id, word: "YYDS", meaning: "forever god", count: 2, updatedAt: 1_001 });
      const scoped = await j.upsert({ word: "yyds", meaning: "group meaning", sessionId: "g1" });
      expect(scoped.id).not.toBe(first.id);
      expect(scoped.count).toBe(1);
    });

    it("finds exact words case-insensitively within the session or global scope, most used first", async () => {
      const h = await make();
      const j = h.stores.jargon;
      await j.upsert({ word: "Awsl", meaning: "global", sessionId: null });
      await j.upsert({ word: "awsl", meaning: "g1", sessionId: "g1" });
      await j.upsert({ word: "awsl", meaning: "g1", sessionId: "g1" });
      await j.upsert({ word: "awsl", meaning: "g2", sessionId: "g2" });
      const meanings = (list: { meaning: string }[]) => list.map((e) => e.meaning);
      expect(meanings(await j.findExact("AWSL", 5, "g1"))).toEqual(["g1", "global"]);
      expect(meanings(await j.findExact("awsl", 5))).toEqual(["g1", "global", "g2"]);
      expect(meanings(await j.findExact("awsl", 1, "g2"))).toHaveLength(1);
      expect(await j.findExact("awsl", 0)).toEqual([]);
      expect(await j.findExact("nothing", 5)).toEqual([]);
    });

    it("fuzzy-matches substrings in both directions and leaves exact matches out", async () => {
      const h = await make();
      const j = h.stores.jargon;
      for (const word of ["破防", "破防了家人们", "防", "绝绝子", "Emo"]) {
        await j.upsert({ word, meaning: `m-${word}`, sessionId: null });
        h.tick();
      }
      const words = async (w: string) => (await j.findFuzzy(w, 10)).map((e) => e.word).sort();
      expect(await words("破防")).toEqual(["破防了家人们", "防"]);
      expect(await words("EMO")).toEqual([]);
      expect(await words("emotional")).toEqual(["Emo"]);
      expect(await words("  ")).toEqual([]);
    });

    it("lists most recently updated first and removes by id", async () => {
      const h = await make();
      const j = h.stores.jargon;
      const a = await j.upsert({ word: "a", meaning: "1", sessionId: null });
      h.tick();
      await j.upsert({ word: "b", meaning: "1", sessionId: null });
      h.tick();
      await j.upsert({ word: "A", meaning: "2", sessionId: null });
      expect((await j.list()).map((e) => e.word)).toEqual(["a", "b"]);
      expect((await j.list({ limit: 1 })).map((e) => e.word)).toEqual(["a"]);
      expect(await j.remove(a.id)).toBe(true);
      expect(await j.remove(a.id)).toBe(false);
      expect((await j.list()).map((e) => e.word)).toEqual(["b"]);
    });

    it("keeps examples, pages and searches word, meaning and examples, edits with the version", async () => {
      const h = await make();
      const j = h.stores.jargon;
      const a = await j.upsert({ word: "蚌埠住了", meaning: "绷不住了", sessionId: null, examples: ["笑到蚌埠住了"] });
      expect(a).toMatchObject({ examples: ["笑到蚌埠住了"], version: 1 });
      h.tick();
      const b = await j.upsert({ word: "YYDS", meaning: "forever the GOAT", sessionId: "g1" });
      expect(b.examples).toEqual([]);
      h.tick();
      await j.upsert({ word: "xswl", meaning: "laughing", sessionId: null });
      const words = (list: { word: string }[]) => list.map((e) => e.word);
      expect(words(await j.page({ limit: 10 }))).toEqual(["xswl", "YYDS", "蚌埠住了"]);
      expect(words(await j.page({ limit: 1, offset: 1 }))).toEqual(["YYDS"]);
      expect(words(await j.page({ limit: 10, q: "goat" }))).toEqual(["YYDS"]);
      expect(words(await j.page({ limit: 10, q: "笑到" }))).toEqual(["蚌埠住了"]);
      expect(words(await j.page({ limit: 10, q: "100%" }))).toEqual([]);
      expect(await j.findInScope("yyds", "g1")).toMatchObject({ id: b.id });
      expect(await j.findInScope("yyds", null)).toBeNull();
      expect(await j.get(a.id)).toEqual(a);
      h.tick();
      const edited = await j.update(a.id, { meaning: "忍不住了", examples: [] }, a.version);
      expect(edited).toMatchObject({
        status: "ok",
        record: { meaning: "忍不住了", examples: [], version: 2, updatedAt: 1_003 },
      });
      expect(await j.update(a.id, { meaning: "late" }, a.version)).toMatchObject({
        status: "conflict",
        current: { meaning: "忍不住了", version: 2 },
      });
      expect(await j.update("nope", { meaning: "x" }, 1)).toEqual({ status: "missing" });
      const renamed = await j.update(a.id, { word: " BBZL " }, 2);
      expect(renamed).toMatchObject({ status: "ok", record: { word: "BBZL" } });
      expect(await j.findExact("bbzl", 5)).toHaveLength(1);
      const again = await j.upsert({ word: "bbzl", meaning: "m", sessionId: null });
      expect(again).toMatchObject({ id: a.id, version: 4, examples: [] });
    });
  });

  describe("memories", () => {
    async function filled(h: Harness) {
      const m = h.stores.memories;
      await m.add({ sessionId: "g1", personName: "Alice", content: "Alice likes green tea and green apples", ts: 100 });
      await m.add({ sessionId: "g1", personName: "Bob", content: "Bob likes black coffee", ts: 200 });
      await m.add({ sessionId: null, personName: null, content: "The group trip to the lake was fun", ts: 300 });
      await m.add({ sessionId: "g2", personName: "alice", content: "Alice adopted a green parrot", ts: 400 });
      await m.add({ sessionId: "g1", personName: null, content: "大家约好周六一起去爬山看日出", ts: 500 });
      return m;
    }
    const contents = (list: { content: string }[]) => list.map((e) => e.content.split(" ").slice(0, 2).join(" "));

    it("requires every term and ranks by hits, then newest", async () => {
      const m = await filled(await make());
      expect(contents(await m.search({ mode: "search", query: "green", limit: 10 }))).toEqual([
        "Alice likes",
        "Alice adopted",
      ]);
      expect(contents(await m.search({ mode: "search", query: "LIKES green", limit: 10 }))).toEqual(["Alice likes"]);
      expect(contents(await m.search({ mode: "hybrid", query: "likes", limit: 10 }))).toEqual([
        "Bob likes",
        "Alice likes",
      ]);
      expect(await m.search({ mode: "search", query: "nothing here", limit: 10 })).toEqual([]);
    });

    it("filters by session (own or global), person (case-insensitive) and time bounds", async () => {
      const m = await filled(await make());
      expect(contents(await m.search({ mode: "search", query: "the", limit: 10, sessionId: "g1" }))).toEqual([
        "The group",
      ]);
      expect(contents(await m.search({ mode: "search", query: "green", limit: 10, personName: "ALICE" }))).toEqual([
        "Alice likes",
        "Alice adopted",
      ]);
      expect(contents(await m.search({ mode: "search", query: "green", limit: 10, sessionId: "g1" }))).toEqual([
        "Alice likes",
      ]);
      expect(
        contents(await m.search({ mode: "search", query: "likes", limit: 10, timeStart: 150, timeEnd: 250 })),
      ).toEqual(["Bob likes"]);
    });

    it('"time" mode ignores the query and returns the newest first within the bounds', async () => {
      const m = await filled(await make());
      const hits = await m.search({ mode: "time", query: "green", limit: 3, timeStart: 150 });
      expect(hits.map((e) => e.ts)).toEqual([500, 400, 300]);
      expect((await m.search({ mode: "time", limit: 10, timeEnd: 200 })).map((e) => e.ts)).toEqual([200, 100]);
      expect((await m.search({ mode: "search", limit: 2 })).map((e) => e.ts)).toEqual([500, 400]);
    });

    it("finds Chinese text by substring, short terms included", async () => {
      const m = await filled(await make());
      expect((await m.search({ mode: "search", query: "爬山看日出", limit: 5 })).map((e) => e.ts)).toEqual([500]);
      expect((await m.search({ mode: "search", query: "日出", limit: 5 })).map((e) => e.ts)).toEqual([500]);
      expect((await m.search({ mode: "search", query: "周六 爬山", limit: 5 })).map((e) => e.ts)).toEqual([500]);
    });

    it("lists newest first and removes by id", async () => {
      const m = await filled(await make());
      const list = await m.list({ limit: 2 });
      expect(list.map((e) => e.ts)).toEqual([500, 400]);
      expect(await m.remove(list[0].id)).toBe(true);
      expect(await m.remove(list[0].id)).toBe(false);
      expect(await m.remove("not-an-id")).toBe(false);
      expect(await m.search({ mode: "search", query: "爬山", limit: 5 })).toEqual([]);
      expect((await m.list()).map((e) => e.ts)).toEqual([400, 300, 200, 100]);
    });

    it("pages with an offset, gets by id and edits with the version it started from", async () => {
      const m = await filled(await make());
      expect((await m.search({ mode: "time", limit: 2, offset: 1 })).map((e) => e.ts)).toEqual([400, 300]);
      expect(contents(await m.search({ mode: "search", query: "green", limit: 5, offset: 1 }))).toEqual([
        "Alice adopted",
      ]);
      const [bob] = await m.search({ mode: "search", query: "coffee", limit: 1 });
      expect(bob.version).toBe(1);
      expect(await m.get(bob.id)).toEqual(bob);
      expect(await m.get("not-an-id")).toBeNull();
      const edited = await m.update(bob.id, { content: "Bob now drinks tea", personName: null }, 1);
      expect(edited).toEqual({
        status: "ok",
        record: { ...bob, content: "Bob now drinks tea", personName: null, version: 2 },
      });
      expect(await m.update(bob.id, { content: "stale" }, 1)).toEqual({
        status: "conflict",
        current: { ...bob, content: "Bob now drinks tea", personName: null, version: 2 },
      });
      expect(await m.update("999999", { content: "x" }, 1)).toEqual({ status: "missing" });
      expect(await m.update("not-an-id", { content: "x" }, 1)).toEqual({ status: "missing" });
      expect(await m.search({ mode: "search", query: "coffee", limit: 5 })).toEqual([]);
      expect((await m.search({ mode: "search", query: "drinks", limit: 5 })).map((e) => e.id)).toEqual([bob.id]);
    });
  });

  describe("persons", () => {
    it("finds by id, then name (case-insensitive), then user id", async () => {
      const h = await make();
      const p = h.stores.persons;
      const alice = await p.upsert({
        personName: "Alice",
        userId: "qq-1",
        summary: "likes tea",
        traits: ["calm"],
        facts: ["has a cat"],
      });
      expect(alice).toMatchObject({
        personName: "Alice",
        userId: "qq-1",
        traits: ["calm"],
        facts: ["has a cat"],
        updatedAt: 1_000,
      });
      expect(await p.find(alice.personId)).toEqual(alice);
      expect(await p.find("  alice ")).toEqual(alice);
      expect(await p.find("qq-1")).toEqual(alice);
      expect(await p.find("nobody")).toBeNull();
      expect(await p.find("  ")).toBeNull();
    });

    it("updates the profile with the same user id, else the same name; a personId replaces that profile", async () => {
      const h = await make();
      const p = h.stores.persons;
      const a = await p.upsert({ personName: "Alice", userId: "u1", summary: "v1", traits: [], facts: [] });
      h.tick();
      const renamed = await p.upsert({ personName: "Alicia", userId: "u1", summary: "v2", traits: ["new"], facts: [] });
      expect(renamed.personId).toBe(a.personId);
      const byName = await p.upsert({ personName: "ALICIA", userId: null, summary: "v3", traits: [], facts: ["f"] });
      expect(byName.personId).toBe(a.personId);
      const other = await p.upsert({ personName: "Bob", userId: null, summary: "", traits: [], facts: [] });
      expect(other.personId).not.toBe(a.personId);
      h.tick();
      const replaced = await p.upsert({
        personId: other.personId,
        personName: "Bobby",
        userId: "u2",
        summary: "s",
        traits: [],
        facts: [],
      });
      expect(replaced).toMatchObject({ personId: other.personId, personName: "Bobby", userId: "u2", updatedAt: 1_002 });
      expect((await p.list()).map((x) => x.personName)).toEqual(["Bobby", "ALICIA"]);
      expect(await p.list({ limit: 1 })).toHaveLength(1);
    });

    it("pages and searches name, summary, traits and facts; edits with the version; removes", async () => {
      const h = await make();
      const p = h.stores.persons;
      const alice = await p.upsert({ personName: "Alice", userId: "u1", summary: "tea", traits: ["calm"], facts: [] });
      expect(alice.version).toBe(1);
      h.tick();
      await p.upsert({ personName: "Bob", userId: null, summary: "", traits: [], facts: ["养了一只猫"] });
      const names = (list: { personName: string }[]) => list.map((x) => x.personName);
      expect(names(await p.page({ limit: 10 }))).toEqual(["Bob", "Alice"]);
      expect(names(await p.page({ limit: 10, offset: 1 }))).toEqual(["Alice"]);
      expect(names(await p.page({ limit: 10, q: "CALM" }))).toEqual(["Alice"]);
      expect(names(await p.page({ limit: 10, q: "猫" }))).toEqual(["Bob"]);
      expect(names(await p.page({ limit: 10, q: "tea" }))).toEqual(["Alice"]);
      expect(await p.get(alice.personId)).toEqual(alice);
      h.tick();
      const edited = await p.update(alice.personId, { personName: "Alicia", traits: ["bold"] }, 1);
      expect(edited).toMatchObject({ status: "ok", record: { personName: "Alicia", traits: ["bold"], version: 2 } });
      expect(await p.find("alicia")).toMatchObject({ personId: alice.personId });
      expect(await p.update(alice.personId, { summary: "late" }, 1)).toMatchObject({
        status: "conflict",
        current: { personName: "Alicia", summary: "tea" },
      });
      expect(await p.update("nope", { summary: "x" }, 1)).toEqual({ status: "missing" });
      const upserted = await p.upsert({ personName: "alicia", userId: null, summary: "s", traits: [], facts: [] });
      expect(upserted.version).toBe(3);
      expect(await p.remove(alice.personId)).toBe(true);
      expect(await p.remove(alice.personId)).toBe(false);
      expect(await p.get(alice.personId)).toBeNull();
    });
  });

  describe("learned items", () => {
    it("records, pages newest first with an id cursor, and marks undone once", async () => {
      const h = await make();
      const l = h.stores.learned;
      const item = (targetId: string, ts: number) => ({
        kind: "memory" as const,
        targetId,
        action: "created" as const,
        sessionId: "s1",
        sourceMessageIds: ["m1", "m2"],
        after: { content: targetId },
        before: null,
        afterVersion: 1,
        ts,
      });
      const a = await l.record(item("a", 10));
      const b = await l.record(item("b", 20));
      const c = await l.record({ ...item("c", 20), kind: "jargon", action: "updated", before: { meaning: "old" } });
      expect(c).toMatchObject({ kind: "jargon", action: "updated", before: { meaning: "old" }, undoneAt: null });
      expect(await l.get(a.id)).toEqual(a);
      expect(await l.get("nope")).toBeNull();
      const targets = (list: { targetId: string }[]) => list.map((x) => x.targetId);
      expect(targets(await l.page({ limit: 10 }))).toEqual(["c", "b", "a"]);
      const first = await l.page({ limit: 2 });
      expect(targets(first)).toEqual(["c", "b"]);
      expect(targets(await l.page({ limit: 2, before: first[1].id }))).toEqual(["a"]);
      expect(await l.page({ limit: 2, before: "999" })).toEqual([]);
      expect(await l.markUndone(b.id, 30)).toBe(true);
      expect(await l.markUndone(b.id, 31)).toBe(false);
      expect(await l.markUndone("nope", 31)).toBe(false);
      expect(await l.get(b.id)).toMatchObject({ undoneAt: 30, sourceMessageIds: ["m1", "m2"] });
    });
  });

  describe("tool records", () => {
    it("lists a session's records oldest first; limit keeps the newest", async () => {
      const { stores } = await make();
      const base: Omit<ToolRecord, "id" | "callId" | "ts"> = {
        sessionId: "s1",
        cycleId: "c1",
        toolName: "query_memory",
        providerName: "maisaka_builtin",
        providerType: "builtin",
        arguments: { query: "茶", limit: 5, nested: { a: [1, null] } },
        success: true,
        content: "ok",
        errorMessage: "",
        reasoning: "why",
        durationMs: 12.5,
      };
      await stores.toolRecords.record({ ...base, callId: "k2", ts: 20, structuredContent: { results: [1, 2] } });
      await stores.toolRecords.record({ ...base, callId: "k1", ts: 10 });
      await stores.toolRecords.record({ ...base, callId: "k3", ts: 20, structuredContent: 5 });
      await stores.toolRecords.record({ ...base, callId: "other", ts: 1, sessionId: "s2" });
      const all = await stores.toolRecords.list("s1");
      expect(all.map((r) => r.callId)).toEqual(["k1", "k2", "k3"]);
      expect(all[1]).toMatchObject({ ...base, callId: "k2", ts: 20, structuredContent: { results: [1, 2] } });
      expect(all[2].structuredContent).toBe(5);
      expect("structuredContent" in all[0]).toBe(false);
      expect((await stores.toolRecords.list("s1", { limit: 2 })).map((r) => r.callId)).toEqual(["k2", "k3"]);
    });

    it("keeps the whole result as the provider gave it; records without one have none", async () => {
      const { stores } = await make();
      const result: ToolExecutionResult = {
        toolName: "query_memory",
        success: false,
        content: "部分",
        errorMessage: "timeout",
        structuredContent: { hits: [1, null, "x"] },
        contentItems: [
          {
            ...{ contentType: "image", text: "", data: "aGk=", mimeType: "image/png", uri: "", name: "p.png" },
            ...{ description: "", metadata: { w: 2 } },
          },
        ],
        postHistoryMessages: [{ content: "note for the model", referenceType: "tool_hint" }],
        metadata: { source: "mcp", nested: { n: 1.5 } },
      };
      const base: Omit<ToolRecord, "id" | "callId"> = {
        ...{ sessionId: "s1", cycleId: "c1", toolName: "query_memory", providerName: "p", providerType: "mcp" },
        ...{ arguments: {}, success: false, content: "部分", errorMessage: "timeout", reasoning: "", durationMs: 3 },
        ts: 1,
      };
      await stores.toolRecords.record({ ...base, callId: "with", result });
      await stores.toolRecords.record({ ...base, callId: "without" });
      const [withResult, without] = await stores.toolRecords.list("s1");
      expect(withResult.result).toEqual(result);
      expect("result" in without).toBe(false);
    });
  });

  describe("model calls", () => {
    const call = (over: Partial<Omit<ModelCall, "id">>): Omit<ModelCall, "id"> => ({
      sessionId: "s1",
      cycleId: "c1",
      task: "planner",
      model: "m-1",
      endpoint: "primary",
      request: {
        messages: [
          { role: "system", content: "你是麦麦" },
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "t1", type: "function", function: { name: "reply", arguments: '{"a":1}' } }],
          },
          { role: "tool", content: "ok", tool_call_id: "t1" },
        ],
        tools: [{ type: "function", function: { name: "reply", description: "say", parameters: { type: "object" } } }],
        maxTokens: null,
      },
      response: {
        model: "m-1-2026",
        content: "hi",
        reasoningContent: "thinking",
        toolCalls: [{ id: "t2", type: "function", function: { name: "wait", arguments: "{}" } }],
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
        finishReason: "tool_calls",
      },
      error: null,
      aborted: false,
      startedAt: 1_764_626_000_123.5,
      durationMs: 42.25,
      ...over,
    });

    it("round-trips every field and lists a session's calls by start, then in the order recorded", async () => {
      const { stores } = await make();
      const first = call({});
      const failed = call({ task: "timingGate", cycleId: null, response: null, error: "HTTP 500", startedAt: 5 });
      const aborted = call({ task: "replyer", response: null, error: "aborted", aborted: true, startedAt: 5 });
      const utils = call({ task: "utils", request: { messages: [], tools: [], maxTokens: 256 }, startedAt: 2 });
      for (const c of [first, failed, aborted, call({ sessionId: "s2" }), utils]) await stores.modelCalls.record(c);
      const listed = await stores.modelCalls.list("s1");
      expect(listed.map(({ id: _id, ...rest }) => rest)).toEqual([utils, failed, aborted, first]);
      expect(new Set(listed.map((c) => c.id)).size).toBe(4);
      expect(await stores.modelCalls.list("nobody")).toEqual([]);
    });

    it("pages in call order from the last call of the page before, ties of startedAt by the order recorded", async () => {
      const { stores } = await make();
      for (const startedAt of [3, 1, 2, 2, 2, 5, 4])
        await stores.modelCalls.record(call({ startedAt, durationMs: startedAt }));
      const all = await stores.modelCalls.list("s1");
      expect(all.map((c) => c.startedAt)).toEqual([1, 2, 2, 2, 3, 4, 5]);
      const walked: string[] = [];
      for (let after: ModelCall | undefined; ;) {
        const page = await stores.modelCalls.list("s1", { after, limit: 2 });
        walked.push(...page.map((c) => c.id));
        if (page.length < 2) break;
        after = page.at(-1);
      }
      expect(walked).toEqual(all.map((c) => c.id));
      expect(await stores.modelCalls.list("s1", { limit: 0 })).toEqual([]);
      // A cursor call that is gone: the calls that started after its time.
      const gone = { id: name === "memory" ? "model-call-999" : "999999", startedAt: 2 };
      expect((await stores.modelCalls.list("s1", { after: gone })).map((c) => c.startedAt)).toEqual([3, 4, 5]);
    });
  });

  describe("toggles", () => {
    it("sets toggles with an audit entry carrying the previous value", async () => {
      const { stores } = await make();
      const t = stores.toggles;
      const first = await t.set(
        { toolName: "wait", scope: "global", sessionId: "ignored", enabled: false },
        { id: "op-id", name: "op" },
        "too chatty",
        100,
      );
      expect(first).toMatchObject({
        toolName: "wait",
        scope: "global",
        sessionId: null,
        enabled: false,
        oldEnabled: null,
        actor: "op",
        actorId: "op-id",
        reason: "too chatty",
        ts: 100,
      });
      const second = await t.set(
        { toolName: "wait", scope: "global", sessionId: null, enabled: true },
        { id: "op-id", name: "op" },
        "back",
        200,
      );
      expect(second.oldEnabled).toBe(false);
      const session = await t.set(
        { toolName: "wait", scope: "session", sessionId: "g1", enabled: false },
        { id: "op2-id", name: "op2" },
        "",
        150,
      );
      expect(session).toMatchObject({ scope: "session", sessionId: "g1", oldEnabled: null });
      expect(await t.list()).toEqual([
        { toolName: "wait", scope: "global", sessionId: null, enabled: true },
        { toolName: "wait", scope: "session", sessionId: "g1", enabled: false },
      ]);
      expect((await t.audit()).map((e) => e.reason)).toEqual(["back", "", "too chatty"]);
      expect((await t.audit({ limit: 1 }))[0].id).toBe(second.id);
    });
  });

  describe("usage", () => {
    it("records model calls", async () => {
      const { stores } = await make();
      await expect(
        stores.usage.record(usageRecord({ promptTokens: 10, completionTokens: 5, latencyMs: 120, ts: 1 })),
      ).resolves.toBeUndefined();
    });
  });
});

describe.each([
  ["memory", async () => createMemoryStores().sessions],
  ...databases.map(([name, db]) => [
    `prisma on ${name}`,
    async () => createPrismaStores((await db.prisma()).prisma).sessions,
  ]),
] as [string, () => Promise<SessionStore>][])("%s session list pages", (_name, make) => {
  it("pages newest first with ties by id (descending too), filters, and counts from the last snapshot", async () => {
    const sessions: SessionStore = await make();
    const ids = ["b", "a", "c", "d", "e"];
    for (const [i, id] of ids.entries()) {
      await sessions.upsert({
        id,
        name: id === "d" ? "Deep Room" : `room ${id}`,
        isGroupChat: true,
        platform: id === "e" ? "qq" : "dashboard",
        groupId: null,
        userId: null,
        createdAt: i < 3 ? 10 : 20 + i,
        lastActiveAt: 100 - i,
      });
    }
    await sessions.saveSnapshot({ sessionId: "a", state: { cycleCounter: 3, pending: ["m"] }, ts: 1 });
    await sessions.saveSnapshot({ sessionId: "c", state: "not an object", ts: 1 });
    const walk = async (query: Omit<SessionPageQuery, "limit" | "after">, limit: number) => {
      const out: string[] = [];
      let after: SessionPageQuery["after"];
      for (;;) {
        const page = await sessions.page({ ...query, limit, after });
        out.push(...page.rows.map((r) => r.id));
        const last = page.rows[page.rows.length - 1];
        if (!page.more || !last) return out;
        after = { value: last.createdAt, id: last.id };
      }
    };
    expect(await walk({}, 2)).toEqual(["e", "d", "c", "b", "a"]);
    expect(await walk({ q: "DEEP" }, 2)).toEqual(["d"]);
    expect(await walk({ platform: "qq" }, 1)).toEqual(["e"]);
    expect(await walk({ onlyIds: ["a", "c", "zz"] }, 1)).toEqual(["c", "a"]);
    expect(await walk({ exceptIds: ["a", "e"] }, 10)).toEqual(["d", "c", "b"]);
    const { rows } = await sessions.page({ limit: 10, onlyIds: ["a", "b", "c"] });
    expect(rows.map((r) => [r.id, r.cycleCount, r.pendingMessages])).toEqual([
      ["c", 0, 0],
      ["b", 0, 0],
      ["a", 3, 1],
    ]);
    expect(await sessions.page({ limit: 5, after: { value: 10, id: "a" } })).toEqual({ rows: [], more: false });
  });
});

describe.each([
  ["memory", async () => createMemoryStores()],
  ...databases.map(([name, db]) => [`prisma on ${name}`, async () => createPrismaStores((await db.prisma()).prisma)]),
] as [string, () => Promise<Pick<Stores, "sessions" | "usage">>][])("%s session overview", (_name, make) => {
  it("sorts by any key both ways, filters by range and archived, keeps usage sums, archives and purges", async () => {
    const stores = await make();
    const { sessions, usage } = stores;
    for (const [i, id] of ["a", "b", "c", "d"].entries()) {
      await sessions.upsert({
        id,
        name: ["Zed", "alpha", "Mid", "Mid"][i],
        isGroupChat: true,
        platform: "dashboard",
        groupId: null,
        userId: null,
        createdAt: 10 + i,
        lastActiveAt: [50, 10, 30, 30][i],
      });
    }
    // Sums kept with each call: b 330 tokens and $0.003, c one unpriced call.
    for (const rec of [
      usageRecord({ sessionId: "b", promptTokens: 100, completionTokens: 10, costUsd: 0.001 }),
      usageRecord({ sessionId: "b", promptTokens: 200, completionTokens: 20, costUsd: 0.002 }),
      usageRecord({ sessionId: "c", promptTokens: 5, completionTokens: 5, costUsd: null }),
      usageRecord({ sessionId: null, promptTokens: 9, completionTokens: 9 }),
    ])
      await usage.record(rec);
    const walk = async (query: Omit<SessionPageQuery, "limit" | "after">) => {
      const out: string[] = [];
      const sort = query.sort ?? { key: "createdAt", dir: "desc" };
      let after: SessionPageQuery["after"];
      for (;;) {
        const page = await sessions.page({ ...query, limit: 1, after });
        out.push(...page.rows.map((r) => r.id));
        const last = page.rows[page.rows.length - 1];
        if (!page.more || !last) return out;
        after = { value: last[sort.key], id: last.id };
      }
    };
    // Names by code unit (upper case first), ties by id in the sort's direction.
    expect(await walk({ sort: { key: "name", dir: "asc" } })).toEqual(["c", "d", "a", "b"]);
    expect(await walk({ sort: { key: "name", dir: "desc" } })).toEqual(["b", "a", "d", "c"]);
    expect(await walk({ sort: { key: "lastActiveAt", dir: "desc" } })).toEqual(["a", "d", "c", "b"]);
    expect(await walk({ sort: { key: "totalTokens", dir: "desc" } })).toEqual(["b", "c", "d", "a"]);
    expect(await walk({ sort: { key: "costUsd", dir: "asc" } })).toEqual(["a", "c", "d", "b"]);
    const { rows } = await sessions.page({ limit: 10, onlyIds: ["b", "c"] });
    expect(rows.map((r) => [r.id, r.totalTokens, Number(r.costUsd.toFixed(6)), r.unpricedCalls])).toEqual([
      ["c", 10, 0, 1],
      ["b", 330, 0.003, 0],
    ]);
    expect(await walk({ lastActiveAt: { min: 20, max: 40 } })).toEqual(["d", "c"]);
    expect(await walk({ totalTokens: { min: 1 }, costUsd: { max: 0.001 } })).toEqual(["c"]);
    // A re-run's sums set outright (its calls answered from a recording too): listed and sorted by them.
    expect(await sessions.setUsageTotals("d", { totalTokens: 500, costUsd: 0.0005, unpricedCalls: 2 })).toBe(true);
    expect(await sessions.setUsageTotals("nope", { totalTokens: 1, costUsd: 0, unpricedCalls: 0 })).toBe(false);
    const [d] = (await sessions.page({ limit: 1, onlyIds: ["d"] })).rows;
    expect([d.totalTokens, d.costUsd, d.unpricedCalls]).toEqual([500, 0.0005, 2]);
    expect(await walk({ sort: { key: "totalTokens", dir: "desc" } })).toEqual(["d", "b", "c", "a"]);
    await sessions.setUsageTotals("d", { totalTokens: 0, costUsd: 0, unpricedCalls: 0 });

    expect(await sessions.setArchived("c", 99)).toBe(true);
    expect(await sessions.setArchived("nope", 99)).toBe(false);
    expect(await sessions.archivedAt("c")).toBe(99);
    expect(await walk({ archived: "exclude" })).toEqual(["d", "b", "a"]);
    expect(await walk({ archived: "only" })).toEqual(["c"]);
    expect(await walk({ archivedAt: { max: 98 } })).toEqual([]);
    expect(await walk({ archivedAt: { max: 99 } })).toEqual(["c"]);
    await sessions.setArchived("c", null);
    expect(await walk({ archived: "only" })).toEqual([]);

    await sessions.saveSnapshot({ sessionId: "c", state: { cycleCounter: 1 }, ts: 1 });
    const removed = await sessions.purge("c");
    expect(removed).toMatchObject({ sessions: 1, snapshots: 1, modelCalls: 0 });
    expect(await sessions.get("c")).toBeNull();
    expect(await sessions.loadSnapshot("c")).toBeNull();
    expect(await walk({})).toEqual(["d", "b", "a"]);
    expect((await sessions.purge("c")).sessions).toBe(0);
  });
});

const origin = (over: Partial<SessionOrigin> = {}): SessionOrigin => ({
  kind: "fork",
  sessionId: "orig",
  fromCycle: "c-3",
  at: 1_764_626_000_000,
  actor: "op",
  edits: [
    { kind: "drop_message", messageId: "m1" },
    { kind: "tool_output", toolCallId: "t1", content: "不同", success: false },
  ],
  settings: { chat: { talkValue: 0.2 }, prompts: { planner: null } },
  continueWith: "simulated",
  ...over,
});

describe.each([
  ["memory", async () => createMemoryStores()],
  ...databases.map(([name, db]) => [`prisma on ${name}`, async () => createPrismaStores((await db.prisma()).prisma)]),
] as [string, () => Promise<Pick<Stores, "sessions" | "modelCalls">>][])("%s derived sessions", (name, make) => {
  const record = (id: string, createdAt: number, o?: SessionOrigin) => ({
    ...{ id, name: `room ${id}`, isGroupChat: true, platform: "rerun", groupId: null, userId: null },
    ...{ createdAt, lastActiveAt: createdAt },
    ...(o ? { origin: o } : {}),
  });

  it("keeps a session's origin, lists the sessions derived from one newest first, replaces an origin", async () => {
    const { sessions } = await make();
    await sessions.upsert(record("orig", 1));
    await sessions.upsert(record("r-old", 10, origin({ kind: "rerun", fromCycle: null, edits: [], settings: null })));
    await sessions.upsert(record("f-b", 20, origin()));
    await sessions.upsert(record("f-a", 20, origin()));
    await sessions.upsert(record("elsewhere", 30, origin({ sessionId: "other" })));
    expect(await sessions.get("orig")).toEqual(record("orig", 1));
    expect(await sessions.get("f-a")).toEqual(record("f-a", 20, origin()));
    expect((await sessions.derivedFrom("orig")).map((s) => s.id)).toEqual(["f-b", "f-a", "r-old"]);
    expect((await sessions.derivedFrom("orig"))[2].origin).toMatchObject({ kind: "rerun", fromCycle: null });
    expect(await sessions.derivedFrom("nobody")).toEqual([]);
    const { rows } = await sessions.page({ limit: 10, onlyIds: ["f-a", "orig"] });
    expect(rows.map((r) => [r.id, r.origin?.kind ?? null])).toEqual([
      ["f-a", "fork"],
      ["orig", null],
    ]);

    const ended = origin({
      divergence: {
        ...{ cycleId: "c-3", rerunCycleId: "c-9", cycleIndex: 2, kind: "gate_action", task: "timingGate" },
        ...{ path: "action", expected: "continue", actual: { action: "wait", n: [1] } },
      },
      stats: {
        ...{
          originalCycles: 4,
          rerunCycles: 3,
          replayedCalls: 7,
          liveCalls: 1,
          replayedTools: 2,
          liveTools: 0,
          engineSteps: 3,
        },
        durationMs: 12.5,
      },
    });
    expect(await sessions.setOrigin("f-a", ended)).toBe(true);
    expect(await sessions.setOrigin("nobody", ended)).toBe(false);
    expect((await sessions.get("f-a"))?.origin).toEqual(ended);
    // Re-pointed at another original: it moves to that one's branches.
    expect(await sessions.setOrigin("f-b", origin({ sessionId: "other" }))).toBe(true);
    expect((await sessions.derivedFrom("orig")).map((s) => s.id)).toEqual(["f-a", "r-old"]);
    expect((await sessions.derivedFrom("other")).map((s) => s.id)).toEqual(["elsewhere", "f-b"]);
    // An upsert replaces the whole record: without an origin there is none.
    await sessions.upsert(record("r-old", 10));
    expect(await sessions.get("r-old")).toEqual(record("r-old", 10));
    expect((await sessions.derivedFrom("orig")).map((s) => s.id)).toEqual(["f-a"]);
  });

  // The in-process session store purges only its own rows (its stores are separate objects): the
  // database's purge is the one that takes the model calls along.
  if (name.startsWith("prisma"))
    it("purges a session's model calls with it, and only its", async () => {
      const { sessions, modelCalls } = await make();
      await sessions.upsert(record("gone", 1));
      const request = { messages: [], tools: [], maxTokens: null };
      for (const sessionId of ["gone", "gone", "kept"])
        await modelCalls.record({
          ...{ sessionId, cycleId: null, task: "utils", model: "m", endpoint: "e", request, response: null },
          ...{ error: "x", aborted: false, startedAt: 1, durationMs: 1 },
        });
      expect(await sessions.purge("gone")).toMatchObject({ sessions: 1, modelCalls: 2 });
      expect(await modelCalls.list("gone")).toEqual([]);
      expect(await modelCalls.list("kept")).toHaveLength(1);
    });
});

// The bot's data through the real server: CRUD of memories, jargon, persons and emojis, q search,
// stale edits answered 409 with the current record, emoji uploads checked, and what the builtin tools
// read is exactly what these routes wrote (query_memory in the next turn, send_emoji's candidates).
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema, createdAccountSchema } from "../../lib/api/accounts";
import { maisakaConfigSchema } from "../../lib/config/schema";
import {
  emojiSchema,
  jargonSchema,
  learnedListSchema,
  listSchema,
  memorySchema,
  personSchema,
  type EmojiView,
} from "../../lib/data/schemas";
import type { EmojiRecord } from "../../server/stores/emojis";
import type { BuiltinToolHost } from "../../server/tools/builtin/host";
import { BuiltinToolProvider } from "../../server/tools/builtin/provider";
import { invocation } from "../support/tool-invocation";
import { until } from "../support/until";
import { FAST_CHAT, startTestServer, tempDir, TEST_TOKEN, type TestServer } from "./support";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5350000000049454e44ae426082",
  "hex",
);

let server: TestServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir();
  server = await startTestServer({
    dataDir,
    config: { ...FAST_CHAT, chat: { ...FAST_CHAT.chat, learningBatchMessages: 3 } },
  });
});
afterAll(() => server?.close());

describe("memories", () => {
  it("adds, lists with q/person/time filters, edits with the version, deletes; 404 and 400 name what is wrong", async () => {
    const add = async (body: object) => {
      const res = await server.api("POST", "/api/memories", body);
      expect(res.status).toBe(201);
      return memorySchema.parse(res.json);
    };
    const tea = await add({ content: "Alice likes green tea", personName: "Alice", ts: 1_000 });
    await add({ content: "Bob likes coffee", personName: "Bob", ts: 2_000 });
    await add({ content: "<img src=x onerror=alert(1)> green", ts: 3_000 });
    const list = async (query: string) =>
      listSchema(memorySchema)
        .parse((await server.api("GET", `/api/memories?${query}`)).json)
        .items.map((m) => m.content);
    expect(await list("q=green")).toEqual(["<img src=x onerror=alert(1)> green", "Alice likes green tea"]);
    expect(await list("q=green&person=alice")).toEqual(["Alice likes green tea"]);
    expect(await list("from=1500&to=2500")).toEqual(["Bob likes coffee"]);
    expect(await list(`to=${new Date(1_500).toISOString()}`)).toEqual(["Alice likes green tea"]);
    const paged = listSchema(memorySchema).parse((await server.api("GET", "/api/memories?limit=2")).json);
    expect(paged.nextOffset).toBe(2);

    const edited = await server.api("PATCH", `/api/memories/${tea.id}`, {
      content: "Alice prefers oolong",
      ifVersion: 1,
    });
    expect(edited.status).toBe(200);
    expect(memorySchema.parse(edited.json)).toMatchObject({ content: "Alice prefers oolong", version: 2 });
    // A second operator still holding version 1: told, with what is there now.
    const stale = await server.api("PATCH", `/api/memories/${tea.id}`, { content: "Alice likes matcha", ifVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      error: expect.stringContaining("changed"),
      current: { content: "Alice prefers oolong", version: 2 },
    });

    // Two operators saving the same version at the same moment: one wins, the other is told.
    const [a, b] = await Promise.all(
      ["first writer", "second writer"].map((content) =>
        server.api("PATCH", `/api/memories/${tea.id}`, { content, ifVersion: 2 }),
      ),
    );
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    const winner = a.status === 200 ? a : b;
    expect(loser.json).toMatchObject({ current: memorySchema.parse(winner.json) });

    const bad = await server.api("POST", "/api/memories", { content: "" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ fields: [expect.objectContaining({ path: "content", in: "body" })] });
    const noVersion = await server.api("PATCH", `/api/memories/${tea.id}`, { content: "x" });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json).toMatchObject({ fields: [expect.objectContaining({ path: "ifVersion" })] });
    expect((await server.api("GET", "/api/memories?from=yesterday")).status).toBe(400);

    expect((await server.api("DELETE", `/api/memories/${tea.id}`)).status).toBe(200);
    expect((await server.api("DELETE", `/api/memories/${tea.id}`)).status).toBe(404);
    expect((await server.api("PATCH", "/api/memories/999999", { content: "x", ifVersion: 1 })).status).toBe(404);
    expect(await list("q=oolong")).toEqual([]);
    // Every change is in the one audit trail, under the account that made it.
    const audit = auditPageSchema.parse((await server.api("GET", `/api/audit?target=memory:${tea.id}`)).json);
    // Newest first: the delete, the applied edits (the stale one wrote nothing), the create.
    const actions = audit.entries.map((e) => e.action);
    expect(actions[0]).toBe("memory.delete");
    expect(actions[actions.length - 1]).toBe("memory.create");
    expect(actions.slice(1, -1).every((a) => a === "memory.update") && actions.length > 2).toBe(true);
    expect(new Set(audit.entries.map((e) => e.actor.name))).toEqual(new Set(["admin"]));
    // Each with the record before and after, and the target named by its text (even once deleted).
    const oldest = audit.entries[audit.entries.length - 1];
    expect(oldest).toMatchObject({ before: null, after: { content: "Alice likes green tea", version: 1 } });
    const firstEdit = audit.entries[audit.entries.length - 2];
    expect(firstEdit).toMatchObject({
      action: "memory.update",
      before: { content: "Alice likes green tea", version: 1 },
      after: { content: "Alice prefers oolong", version: 2 },
    });
    expect(audit.entries[0]).toMatchObject({ before: { id: tea.id }, after: null });
    for (const e of audit.entries) expect(e.targetName).toBe(memorySchema.parse(e.after ?? e.before).content);
  });

  it("names audit targets: a session by its name, a tool in a session, an account, a jargon word", async () => {
    const session = await server.createSession({ name: "审计目标群" });
    const toggled = await server.api("PATCH", "/api/tools/wait", {
      enabled: false,
      sessionId: session,
      reason: "quiet",
    });
    expect(toggled.status, toggled.text).toBe(200);
    expect((await server.api("POST", `/api/sessions/${session}/archive`, { reason: "done" })).status).toBe(200);
    const word = jargonSchema.parse((await server.api("POST", "/api/jargon", { word: "审计词", meaning: "m" })).json);
    const account = await server.api("POST", "/api/accounts", { name: "audit-viewer", role: "viewer" });
    expect(account.status, account.text).toBe(201);
    const accountId = createdAccountSchema.parse(account.json).id;
    const named = async (target: string) =>
      auditPageSchema.parse((await server.api("GET", `/api/audit?target=${encodeURIComponent(target)}`)).json)
        .entries[0]?.targetName;
    expect(await named(`session:${session}`)).toBe("审计目标群");
    expect(await named(`tool:wait@session:${session}`)).toBe("wait @ 审计目标群");
    expect(await named(`jargon:${word.id}`)).toBe("审计词");
    expect(await named(`account:${accountId}`)).toBe("audit-viewer");
    // A target that is a name already has none.
    expect((await server.api("PATCH", "/api/tools/wait", { enabled: true, reason: "r" })).status).toBe(200);
    expect(await named("tool:wait")).toBeNull();
  });

  it("a memory added through the API is what query_memory finds in the next turn", async () => {
    const res = await server.api("POST", "/api/memories", { content: "小明下周要去北京出差" });
    expect(res.status).toBe(201);
    const sessionId = await server.createSession();
    expect((await server.say(sessionId, "还记得 北京出差 吗")).status).toBe(202);
    const event = await server.waitForEvent(
      sessionId,
      (e) => e.type === "tool.execution" && e.data.toolName === "query_memory",
    );
    expect(event.data).toMatchObject({ success: true });
    expect(JSON.stringify(event.data)).toContain("小明下周要去北京出差");
  });
});

describe("jargon", () => {
  it("adds with examples, refuses a duplicate word with the current entry, searches, edits, deletes", async () => {
    const created = await server.api("POST", "/api/jargon", {
      word: "蚌埠住了",
      meaning: "绷不住了",
      examples: ["笑到蚌埠住了"],
    });
    expect(created.status).toBe(201);
    const entry = jargonSchema.parse(created.json);
    const dup = await server.api("POST", "/api/jargon", { word: "蚌埠住了", meaning: "another" });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ current: { id: entry.id, meaning: "绷不住了" } });
    const found = listSchema(jargonSchema).parse((await server.api("GET", "/api/jargon?q=笑到")).json);
    expect(found.items.map((j) => j.id)).toEqual([entry.id]);
    const edited = await server.api("PATCH", `/api/jargon/${entry.id}`, {
      meaning: "忍不住了",
      ifVersion: entry.version,
    });
    expect(jargonSchema.parse(edited.json)).toMatchObject({ meaning: "忍不住了", examples: ["笑到蚌埠住了"] });
    expect(
      (await server.api("PATCH", `/api/jargon/${entry.id}`, { meaning: "x", ifVersion: entry.version })).status,
    ).toBe(409);
    const other = jargonSchema.parse(
      (await server.api("POST", "/api/jargon", { word: "xswl", meaning: "笑死我了" })).json,
    );
    const clash = await server.api("PATCH", `/api/jargon/${other.id}`, { word: "蚌埠住了", ifVersion: other.version });
    expect(clash.status).toBe(400);
    expect(clash.json).toMatchObject({ fields: [expect.objectContaining({ path: "word" })] });
    // The builtin tool's store sees the edit.
    expect(await server.app.engine.stores.jargon.findExact("蚌埠住了", 1)).toMatchObject([{ meaning: "忍不住了" }]);
    expect((await server.api("DELETE", `/api/jargon/${entry.id}`)).status).toBe(200);
    expect((await server.api("DELETE", `/api/jargon/${entry.id}`)).status).toBe(404);
  });
});

describe("persons", () => {
  it("adds, refuses a second profile of the same name, searches facts, edits with the version, deletes", async () => {
    const created = await server.api("POST", "/api/persons", {
      name: "Carol",
      summary: "runs the book club",
      traits: ["organised"],
      facts: ["has two cats"],
    });
    expect(created.status).toBe(201);
    const carol = personSchema.parse(created.json);
    expect((await server.api("POST", "/api/persons", { name: "carol" })).status).toBe(409);
    const found = listSchema(personSchema).parse((await server.api("GET", "/api/persons?q=cats")).json);
    expect(found.items.map((p) => p.id)).toEqual([carol.id]);
    const edited = await server.api("PATCH", `/api/persons/${carol.id}`, { facts: ["has three cats"], ifVersion: 1 });
    expect(personSchema.parse(edited.json)).toMatchObject({ name: "Carol", facts: ["has three cats"], version: 2 });
    const stale = await server.api("PATCH", `/api/persons/${carol.id}`, { summary: "x", ifVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ current: { facts: ["has three cats"] } });
    expect(await server.app.engine.stores.persons.find("carol")).toMatchObject({ facts: ["has three cats"] });
    expect((await server.api("DELETE", `/api/persons/${carol.id}`)).status).toBe(200);
    expect((await server.api("DELETE", `/api/persons/${carol.id}`)).status).toBe(404);
  });
});

describe("emojis", () => {
  const upload = (body: object) =>
    server.api("POST", "/api/emojis", {
      imageBase64: PNG.toString("base64"),
      mimeType: "image/png",
      description: "a tiny dot",
      emotions: ["开心"],
      ...body,
    });

  it("stores an upload under a random name, serves its image, refuses bad bytes naming the field", async () => {
    const res = await upload({});
    expect(res.status).toBe(201);
    const emoji = emojiSchema.parse(res.json);
    expect(emoji.file).toMatch(/^emoji\/u-[0-9a-f-]+\.png$/);
    expect(await readdir(path.join(dataDir, "emoji"))).toContain(path.basename(emoji.file));
    const image = await fetch(`${server.url}${emoji.imageUrl}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);

    const wrongMagic = await upload({ mimeType: "image/gif" });
    expect(wrongMagic.status).toBe(400);
    expect(wrongMagic.json).toMatchObject({ fields: [expect.objectContaining({ path: "mimeType" })] });
    const notBase64 = await upload({ imageBase64: "not base64!" });
    expect(notBase64.status).toBe(400);
    expect(notBase64.json).toMatchObject({ fields: [expect.objectContaining({ path: "imageBase64" })] });
    const svg = await upload({ mimeType: "image/svg+xml" });
    expect(svg.status).toBe(400);
    const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
    expect((await upload({ imageBase64: big.toString("base64") })).status).toBe(400);

    expect((await server.api("DELETE", `/api/emojis/${emoji.id}`)).status).toBe(200);
    expect(await readdir(path.join(dataDir, "emoji"))).not.toContain(path.basename(emoji.file));
    expect((await server.api("DELETE", `/api/emojis/${emoji.id}`)).status).toBe(404);
  });

  it("a disabled emoji is never offered to send_emoji; enabling it again offers it", async () => {
    const library = listSchema(emojiSchema).parse((await server.api("GET", "/api/emojis")).json).items;
    const mine = emojiSchema.parse((await upload({ description: "only me" })).json);
    const disable = async (e: EmojiView, disabled: boolean) => {
      const res = await server.api("PATCH", `/api/emojis/${e.id}`, { disabled, ifVersion: e.version });
      expect(res.status).toBe(200);
      return emojiSchema.parse(res.json);
    };
    for (const e of library) await disable(e, true);
    // send_emoji through the builtin provider over the server's own stores: what it offers the chooser.
    const sendEmoji = async () => {
      const offered: EmojiRecord[][] = [];
      const host: BuiltinToolHost = {
        config: maisakaConfigSchema.parse({}),
        stores: server.app.engine.stores,
        writeReply: async () => "",
        chooseEmoji: async (req) => (offered.push(req.candidates), { index: 0, reason: "" }),
        send: async (req) => ({
          delivered: true,
          message: {
            sessionId: req.sessionId,
            messageId: "m",
            direction: "outbound",
            userId: "bot",
            userName: "bot",
            text: req.text,
            ts: 1,
          },
        }),
        deferredTools: async () => [],
        discoveredToolNames: async () => new Set(),
      };
      const result = await new BuiltinToolProvider(host).invoke(invocation("send_emoji"));
      return { result, offered: (offered[0] ?? []).map((c) => c.id) };
    };
    expect((await sendEmoji()).offered).toEqual([mine.id]);
    const off = await disable(mine, true);
    expect(await sendEmoji()).toMatchObject({ result: { success: false }, offered: [] });
    await disable(off, false);
    expect((await sendEmoji()).offered).toEqual([mine.id]);
    const listed = listSchema(emojiSchema).parse((await server.api("GET", "/api/emojis")).json).items;
    expect(listed.filter((e) => e.disabled).map((e) => e.id)).toEqual(library.map((e) => e.id));
  });
});

describe("the learned feed", () => {
  it("lists what learning wrote with its source messages, and undoes it", async () => {
    const sessionId = await server.createSession();
    for (const text of ["这波操作 yyds", "确实 yyds 啊", "yyds 不解释"])
      expect((await server.say(sessionId, text)).status).toBe(202);
    const feed = await until(async () => {
      const page = learnedListSchema.parse((await server.api("GET", "/api/learned?limit=50")).json);
      return page.items.find((i) => i.sessionId === sessionId && i.kind === "jargon") ? page : null;
    }, "learned jargon of the session");
    const item = feed.items.find((i) => i.sessionId === sessionId && i.kind === "jargon");
    if (!item) throw new Error("no learned jargon");
    expect(item.sources.map((s) => s.text)).toEqual(expect.arrayContaining(["这波操作 yyds"]));
    expect(item.action).toBe("created");
    expect((await server.app.engine.stores.jargon.get(item.targetId)) !== null).toBe(true);

    const undo = await server.api("DELETE", `/api/learned/${item.id}`);
    expect(undo.status).toBe(200);
    expect(undo.json).toMatchObject({ id: item.id, undoneAt: expect.any(Number) });
    expect(await server.app.engine.stores.jargon.get(item.targetId)).toBeNull();
    expect((await server.api("DELETE", `/api/learned/${item.id}`)).status).toBe(409);
    expect((await server.api("DELETE", "/api/learned/999999")).status).toBe(404);
    expect((await server.api("GET", "/api/learned?cursor=abc")).status).toBe(400);
  });

  it("undoing an update restores the earlier values; after an operator's edit the undo is a conflict", async () => {
    const stores = server.app.engine.stores;
    const learnedBy = { sessionId: "s-learn", sourceMessageIds: ["m-1"], ts: Date.now() };
    const before = await stores.jargon.upsert({ word: "摸鱼", meaning: "slacking off", sessionId: "s-learn" });
    const after = await stores.jargon.upsert({ word: "摸鱼", meaning: "catching fish", sessionId: "s-learn" });
    const update = await stores.learned.record({
      ...learnedBy,
      kind: "jargon",
      targetId: after.id,
      action: "updated",
      after,
      before,
      afterVersion: after.version,
    });
    expect((await server.api("DELETE", `/api/learned/${update.id}`)).status).toBe(200);
    expect(await stores.jargon.get(after.id)).toMatchObject({ meaning: "slacking off", count: 1 });

    const dora = await stores.persons.upsert({
      personName: "Dora",
      userId: null,
      summary: "learned",
      traits: [],
      facts: [],
    });
    const created = await stores.learned.record({
      ...learnedBy,
      kind: "person",
      targetId: dora.personId,
      action: "created",
      after: dora,
      before: null,
      afterVersion: dora.version,
    });
    const edit = await server.api("PATCH", `/api/persons/${dora.personId}`, {
      summary: "operator's words",
      ifVersion: 1,
    });
    expect(edit.status).toBe(200);
    const undo = await server.api("DELETE", `/api/learned/${created.id}`);
    expect(undo.status).toBe(409);
    expect(undo.json).toMatchObject({
      error: expect.stringContaining("edited"),
      current: { after: { summary: "operator's words" } },
    });
    expect(await stores.persons.get(dora.personId)).toMatchObject({ summary: "operator's words" });
    const feed = learnedListSchema.parse((await server.api("GET", "/api/learned?limit=200")).json);
    expect(feed.items.find((i) => i.id === created.id)).toMatchObject({
      undoneAt: null,
      sources: [{ messageId: "m-1", text: null }],
    });
    // Pages follow each other through the cursor without gaps or repeats.
    const first = learnedListSchema.parse((await server.api("GET", "/api/learned?limit=1")).json);
    const second = learnedListSchema.parse(
      (await server.api("GET", `/api/learned?limit=1&cursor=${first.nextCursor ?? ""}`)).json,
    );
    expect(first.nextCursor).toBe(first.items[0].id);
    expect(second.items[0].id).not.toBe(first.items[0].id);
  });
});

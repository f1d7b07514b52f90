// Export and import of a session (GET /api/sessions/:id/export, POST /api/sessions/import): a session
// recorded by the real engine with the scripted model is exported, imported into a fresh instance (its
// own database), and compared event by event and byte by byte; the imported session is read-only.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleHeaderSchema, bundleLineSchema, importedSessionSchema, type BundleLine } from "../../lib/api/bundle";
import { sessionSummarySchema } from "../../lib/api/schemas";
import { until } from "../support/until";
import type { ModelCall } from "../../lib/rerun/cassette";
import { sessionBranchesResponseSchema, type SessionOrigin } from "../../lib/rerun/schemas";
import { seedEmojis, seedImage } from "../../server/db/seed";
import type { ToolRecord } from "../../server/stores/tool-records";
import type { MonitorEvent } from "../../lib/events/schemas";
import { PING_PONG_CHAT, PING_PONG_MODELS, startPingPongModel } from "../support/ping-pong-model";
import type { ScriptedOpenAi } from "../support/scripted-openai";
import { startTestServer, TEST_TOKEN, type TestServer } from "./support";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let model: ScriptedOpenAi;
let imageHost: Server;
let imageUrl = "";
let source: TestServer;
let target: TestServer;
let sessionId = "";
let bundle = "";

const NDJSON = { "content-type": "application/x-ndjson" };

async function exportText(s: TestServer, id: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await s.api("GET", `/api/sessions/${id}/export`);
  return { status: res.status, type: res.headers.get("content-type"), text: res.text };
}

const importBundle = (s: TestServer, text: string, token?: string) =>
  s.api("POST", "/api/sessions/import", undefined, { raw: text, headers: NDJSON, ...(token ? { token } : {}) });

/** The bundle as if exported from a session of id `id` (header and every event). */
function withSessionId(text: string, id: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => {
      const value = JSON.parse(line) as { kind: string; session?: object; event?: object };
      if (value.kind === "header") return JSON.stringify({ ...value, session: { ...value.session, id } });
      if (value.kind === "event") return JSON.stringify({ ...value, event: { ...value.event, sessionId: id } });
      return line;
    })
    .join("\n");
}

/** `[[[…]]]`, `depth` levels: as text, since JSON.stringify itself overflows the stack on it. */
const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/**
 * POSTs an import whose second line is `lineBytes` long, written 1 MiB at a time (with backpressure)
 * until the server answers; says how many bytes had been written by then.
 */
function importLongLine(
  s: TestServer,
  lineBytes: number,
): Promise<{ status: number | undefined; text: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${s.url}/api/sessions/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, ...NDJSON },
    });
    let sent = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const at = sent;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8"), sent: at }));
    });
    // Writing on after the server closed the connection fails: only an error before the answer counts.
    req.on("error", (error) => answered || reject(error));
    const start = `${bundle.split("\n")[0]}\n{"kind":"event","event":{"pad":"`;
    req.write(start);
    sent += start.length;
    const mib = Buffer.alloc(1 << 20, "x");
    const pump = () => {
      while (!answered && sent < lineBytes) {
        sent += mib.length;
        if (!req.write(mib)) return void req.once("drain", pump);
      }
      if (!answered) req.end('"}}\n');
    };
    pump();
  });
}

function linesOf(text: string): { header: unknown; rest: BundleLine[] } {
  const [first, ...rest] = text.trimEnd().split("\n");
  return {
    header: bundleHeaderSchema.parse(JSON.parse(first)),
    rest: rest.map((l) => bundleLineSchema.parse(JSON.parse(l))),
  };
}

beforeAll(async () => {
  model = await startPingPongModel(40);
  imageHost = createServer((req, res) => {
    if (req.url === "/cat.png") return void res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageHost.listen(0, "127.0.0.1", resolve));
  imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/cat.png`;
  source = await startTestServer({
    config: {
      chat: PING_PONG_CHAT,
      models: PING_PONG_MODELS,
      platforms: { onebot: { imagesFromPrivateNetworks: true } },
    },
    env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
  });
  target = await startTestServer({});
  // A recorded session: a turn with tool calls and a reply, then a message with an image.
  sessionId = await source.createSession({ name: "export me", isGroupChat: true, platform: "api" });
  expect((await source.say(sessionId, "ping-1 你好", { atBot: true })).status).toBe(202);
  await source.waitForEvent(sessionId, (e) => e.type === "message.sent", 20_000);
  const session = await source.app.engine.stores.sessions.get(sessionId);
  if (!session) throw new Error("session missing");
  await source.app.engine.manager.registerMessage(session, {
    sessionId,
    messageId: "img-1",
    direction: "inbound",
    userId: "u2",
    userName: "Bob",
    text: "ping-2 [图片]",
    images: [{ url: imageUrl, file: "cat.png" }],
    atBot: true,
    ts: Date.now(),
  });
  await source.waitForEvent(sessionId, (e) => e.type === "message.ingested" && e.data.messageId === "img-1", 20_000);
  const ended = await source.waitForEvent(
    sessionId,
    (e) => e.type === "cycle.end" && e.seq > 0 && e.data.endReason !== "continue",
    20_000,
  );
  // The runtime saves its snapshot after the cycle's last event: the bundle carries the one of that turn.
  await until(
    async () => ((await source.app.engine.stores.sessions.loadSnapshot(sessionId))?.ts ?? 0) >= ended.ts,
    "the snapshot saved after the image's turn",
    { timeoutMs: 20_000 },
  );
  // An emoji the bot sent (send_emoji's message.sent names its library file), as the session host emits it.
  source.app.engine.bus.emit(sessionId, "message.sent", {
    content: "[表情包] 开心",
    messageId: "bot-emoji-1",
    replyTo: null,
    kind: "emoji",
    emojiFile: "emoji/happy.png",
  });
  await source.app.engine.bus.whenFlushed();
  const exported = await exportText(source, sessionId);
  expect(exported.status, exported.text).toBe(200);
  expect(exported.type).toMatch(/^application\/x-ndjson/);
  bundle = exported.text;
}, 60_000);

afterAll(async () => {
  await source?.close();
  await target?.close();
  await model?.close();
  imageHost?.closeAllConnections();
  await new Promise((resolve) => imageHost?.close(resolve));
});

describe("session export bundle", () => {
  it("is a versioned header, every event in seq order, the referenced media and an end line", () => {
    const { header, rest } = linesOf(bundle);
    const h = bundleHeaderSchema.parse(header);
    expect(h.schemaVersion).toBe(2);
    expect(h.session).toMatchObject({ id: sessionId, name: "export me", isGroupChat: true });
    const events = rest.flatMap((l) => (l.kind === "event" ? [l.event] : []));
    expect(events.length).toBe(h.counts.events);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const media = rest.filter((l) => l.kind === "media");
    expect(media).toHaveLength(2);
    const image = media.find((m) => m.refs[0].type === "chat_image");
    expect(image).toMatchObject({
      contentType: "image/png",
      refs: [{ type: "chat_image", messageId: "img-1", index: 0 }],
    });
    expect(Buffer.from(image?.data ?? "", "base64").equals(PNG)).toBe(true);
    const emoji = media.find((m) => m.refs[0].type === "emoji");
    expect(emoji?.refs).toEqual([{ type: "emoji", file: "emoji/happy.png" }]);
    expect(
      Buffer.from(emoji?.data ?? "", "base64").equals(
        seedImage(seedEmojis.filter((e) => e.file === "emoji/happy.png")[0]),
      ),
    ).toBe(true);
    const calls = rest.filter((l) => l.kind === "model_call");
    const records = rest.filter((l) => l.kind === "tool_record");
    expect(rest.at(-1)).toEqual({
      ...{ kind: "end", events: events.length, media: 2, missingMedia: 0 },
      ...{ modelCalls: calls.length, toolRecords: records.length },
    });
    // In order: events, the snapshot, model calls, tool records, media.
    const kinds = rest.map((l) => l.kind).filter((k, i, all) => k !== all[i - 1]);
    expect(kinds).toEqual(["event", "snapshot", "model_call", "tool_record", "media", "end"]);
  });

  it("carries every recorded model call and every tool record with its whole result", async () => {
    const { rest } = linesOf(bundle);
    const calls = rest.flatMap((l) => (l.kind === "model_call" ? [l.call] : []));
    const tasks = new Set(calls.map((c) => c.task));
    for (const task of ["planner", "replyer"]) expect(tasks).toContain(task);
    // The calls the source recorded up to the export (learning may record more after it).
    const recorded = (await source.app.engine.stores.modelCalls.list(sessionId)).map(withoutIds);
    expect(calls).toEqual(recorded.slice(0, calls.length));
    const records = rest.flatMap((l) => (l.kind === "tool_record" ? [l.record] : []));
    expect(records.map((r) => r.toolName)).toContain("reply");
    expect(records.every((r) => r.result?.toolName === r.toolName)).toBe(true);
    const stored = (await source.app.engine.stores.toolRecords.list(sessionId)).map(withoutIds);
    expect(records).toEqual(stored.slice(0, records.length));
  });
});

function withoutIds<T extends ModelCall | ToolRecord>({ id: _id, sessionId: _s, ...rest }: T) {
  return rest;
}

describe("import into a fresh instance", () => {
  let imported = "";
  let sourceEvents: MonitorEvent[] = [];

  it("recreates the session with every event as it was, and its media byte for byte", async () => {
    const res = await importBundle(target, bundle);
    expect(res.status, res.text).toBe(201);
    const body = importedSessionSchema.parse(res.json);
    imported = body.id;
    // The original id was free in the fresh database.
    expect(imported).toBe(sessionId);
    const count = bundleHeaderSchema.parse(JSON.parse(bundle.split("\n")[0])).counts.events;
    sourceEvents = (await source.events(sessionId)).slice(0, count);
    const targetEvents = await target.events(imported);
    expect(targetEvents.length).toBe(count);
    for (let i = 0; i < count; i++) expect(targetEvents[i]).toEqual(sourceEvents[i]);
    const image = await fetch(`${target.url}/api/sessions/${imported}/messages/img-1/images/0`, {
      headers: { authorization: `Bearer test-operator-token-0123456789` },
    });
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    // The history window comes from the bundle's snapshot line: the one the source had saved.
    const snapshot = linesOf(bundle).rest.find((l) => l.kind === "snapshot");
    if (snapshot?.kind !== "snapshot") throw new Error("no snapshot line");
    expect(snapshot.state.history.length).toBeGreaterThan(0);
    const history = await target.api("GET", `/api/sessions/${imported}/history`);
    expect(history.json).toEqual({ sessionId: imported, source: "snapshot", history: snapshot.state.history });
  });

  it("keeps the bundle's model calls and tool records, results included, for a re-run", async () => {
    const { rest } = linesOf(bundle);
    const calls = rest.flatMap((l) => (l.kind === "model_call" ? [l.call] : []));
    const records = rest.flatMap((l) => (l.kind === "tool_record" ? [l.record] : []));
    const stores = target.app.engine.stores;
    expect((await stores.modelCalls.list(imported)).map(withoutIds)).toEqual(calls);
    expect((await stores.toolRecords.list(imported)).map(withoutIds)).toEqual(records);
    const served = await target.api("GET", `/api/sessions/${imported}/model-calls`);
    expect((served.json as { calls: ModelCall[] }).calls.map(withoutIds)).toEqual(calls);
  });

  it("exports again to the same bundle (header time aside)", async () => {
    const again = await exportText(target, imported);
    expect(again.status).toBe(200);
    const a = bundle.trimEnd().split("\n");
    const b = again.text.trimEnd().split("\n");
    expect(b.length).toBe(a.length);
    const strip = (line: string) => ({ ...bundleHeaderSchema.parse(JSON.parse(line)), exportedAt: 0 });
    expect(strip(b[0])).toEqual(strip(a[0]));
    expect(b.slice(1)).toEqual(a.slice(1));
  });

  it("is read-only: marked imported, lastSeq counted, messages/send/tool calls answer 409, never run", async () => {
    const summary = await target.api("GET", `/api/sessions/${imported}`);
    expect(summary.json).toMatchObject({ id: imported, imported: true, lastSeq: sourceEvents.length, running: false });
    expect((await target.say(imported, "hello?")).status).toBe(409);
    expect((await target.api("POST", `/api/sessions/${imported}/send`, { text: "as the bot" })).status).toBe(409);
    const invoke = await target.api("POST", "/api/tools/query_jargon/invoke", { sessionId: imported, arguments: {} });
    expect(invoke.status).toBe(409);
    expect(target.app.engine.manager.runningSessionIds()).not.toContain(imported);
    // The engine itself refuses to run it, whoever asks.
    const record = await target.app.engine.stores.sessions.get(imported);
    expect(record?.imported).toBe(true);
    if (record) await expect(target.app.engine.manager.getOrCreate(record)).rejects.toThrow(/read-only/);
  });

  it("takes a new id when the original is taken, and audits the import", async () => {
    const res = await importBundle(target, bundle);
    expect(res.status, res.text).toBe(201);
    const { id } = importedSessionSchema.parse(res.json);
    expect(id).not.toBe(sessionId);
    const events = await target.events(id);
    expect(events.map((e) => ({ ...e, sessionId }))).toEqual(sourceEvents);
    const audit = await target.api("GET", "/api/audit");
    expect(JSON.stringify(audit.json)).toContain(`session:${id}`);
  });

  it("lands the same bundle sent twice at once twice, each whole under its own id", async () => {
    const fresh = await startTestServer({});
    try {
      const results = await Promise.all([importBundle(fresh, bundle), importBundle(fresh, bundle)]);
      for (const res of results) expect(res.status, res.text).toBe(201);
      const ids = results.map((res) => importedSessionSchema.parse(res.json).id);
      expect(new Set(ids).size).toBe(2);
      expect(ids).toContain(sessionId);
      for (const id of ids) {
        const events = await fresh.events(id);
        expect(events.map((e) => ({ ...e, sessionId }))).toEqual(sourceEvents);
      }
    } finally {
      await fresh.close();
    }
  });
});

describe("session ids of imports", () => {
  it("never takes a platform chat's id or a reserved one: the copy gets an id of its own", async () => {
    for (const wanted of ["qq:10001:group:20002", "qq:10001:private:30003", "_global", "mcp-gateway"]) {
      const res = await importBundle(target, withSessionId(bundle, wanted));
      expect(res.status, res.text).toBe(201);
      const { id } = importedSessionSchema.parse(res.json);
      expect(id).toMatch(/^s-/);
      expect((await target.events(id)).every((e) => e.sessionId === id)).toBe(true);
      // The chat's own session stays free for its messages.
      expect(await target.app.engine.stores.sessions.get(wanted)).toBeNull();
    }
  });

  it("refuses an id no route could read or delete (400 on line 1), writing nothing", async () => {
    const before = (await target.api("GET", "/api/sessions?limit=100")).json;
    for (const wanted of ["../../etc/x", "a/b", "x".repeat(129), "with space"]) {
      const res = await importBundle(target, withSessionId(bundle, wanted));
      expect(res.status, res.text).toBe(400);
      expect((res.json as { error: string }).error).toMatch(/^line 1: not a bundle header \(session\.id: /);
    }
    expect((await target.api("GET", "/api/sessions?limit=100")).json).toEqual(before);
  });
});

describe("older and derived bundles", () => {
  it("imports a version 1 bundle (no model calls, tool records or origin)", async () => {
    const lines = bundle.trimEnd().split("\n");
    const header = { ...(JSON.parse(lines[0]) as object), schemaVersion: 1 };
    const body = lines
      .slice(1)
      .filter((l) => !l.includes('"kind":"model_call"') && !l.includes('"kind":"tool_record"'));
    const { modelCalls: _m, toolRecords: _t, ...end } = JSON.parse(body.pop() ?? "{}") as Record<string, unknown>;
    const v1 = [JSON.stringify(header), ...body, JSON.stringify(end)].join("\n");
    const res = await importBundle(target, v1);
    expect(res.status, res.text).toBe(201);
    const { id } = importedSessionSchema.parse(res.json);
    expect(await target.app.engine.stores.modelCalls.list(id)).toEqual([]);
    expect((await target.events(id)).length).toBe(bundleHeaderSchema.parse(header).counts.events);
  });

  it("keeps a derived session's origin: the imported copy is a branch of its original there too", async () => {
    const origin: SessionOrigin = {
      ...{ kind: "fork", sessionId, fromCycle: "c-1", at: 5, actor: "op", settings: { chat: { talkValue: 0.5 } } },
      ...{ edits: [{ kind: "drop_message", messageId: "img-1" }], continueWith: "simulated", divergence: null },
    };
    const now = Date.now();
    await source.app.engine.stores.sessions.upsert({
      ...{ id: "fork-x", name: "what if", isGroupChat: true, platform: "api", groupId: null, userId: null },
      ...{ createdAt: now, lastActiveAt: now, origin },
    });
    // More calls than one page of the export's reads, some starting at the same moment.
    const request = { messages: [{ role: "user" as const, content: "q" }], tools: [], maxTokens: null };
    for (let i = 0; i < 230; i++)
      await source.app.engine.stores.modelCalls.record({
        ...{ sessionId: "fork-x", cycleId: `c-${i}`, task: "planner", model: "m", endpoint: "e", request },
        ...{ response: null, error: "x", aborted: false, startedAt: 1_000 + Math.floor(i / 3), durationMs: i },
      });
    const exported = await exportText(source, "fork-x");
    expect(exported.status, exported.text).toBe(200);
    const res = await importBundle(target, exported.text);
    expect(res.status, res.text).toBe(201);
    const { id } = importedSessionSchema.parse(res.json);
    const copied = await target.app.engine.stores.modelCalls.list(id);
    expect(copied.map((c) => c.cycleId)).toEqual(Array.from({ length: 230 }, (_, i) => `c-${i}`));
    const summary = sessionSummarySchema.parse((await target.api("GET", `/api/sessions/${id}`)).json);
    expect(summary).toMatchObject({ imported: true, origin });
    // The original was imported under its own id first: the fork is its branch in the target too.
    const branches = sessionBranchesResponseSchema.parse(
      (await target.api("GET", `/api/sessions/${sessionId}/branches`)).json,
    );
    expect(branches.branches.map((b) => b.id)).toEqual([id]);
    expect((await target.say(id, "hello?")).status).toBe(409);
  });
});

describe("import refuses bad bundles, writing nothing", () => {
  async function sessionCount(): Promise<number> {
    return ((await target.api("GET", "/api/sessions?limit=100")).json as { sessions: unknown[] }).sessions.length;
  }

  it("names the malformed line (400)", async () => {
    const lines = bundle.trimEnd().split("\n");
    const firstCall = lines.findIndex((l) => l.includes('"kind":"model_call"'));
    const cases: [string, number][] = [
      [[...lines.slice(0, 2), "{not json", ...lines.slice(3)].join("\n"), 3],
      [[...lines.slice(0, 3), JSON.stringify({ kind: "event", event: { seq: 3 } }), ...lines.slice(4)].join("\n"), 4],
      // Events out of order.
      [[lines[0], lines[2], lines[1], ...lines.slice(3)].join("\n"), 2],
      // Cut short: no end line.
      [lines.slice(0, -1).join("\n"), lines.length],
      // A model call after the media.
      [
        [...lines.filter((_, i) => i !== firstCall).slice(0, -1), lines[firstCall], lines.at(-1)].join("\n"),
        lines.length - 1,
      ],
      ["{}", 1],
    ];
    const before = await sessionCount();
    for (const [text, line] of cases) {
      const res = await importBundle(target, text);
      expect(res.status, res.text).toBe(400);
      expect((res.json as { error: string }).error).toMatch(new RegExp(`^line ${line}: `));
    }
    expect(await sessionCount()).toBe(before);
  });

  it("refuses a line nested 10,000 levels deep (400 naming it, not a stack overflow)", async () => {
    const lines = bundle.trimEnd().split("\n");
    const at = lines.findIndex((l) => l.includes('"kind":"tool_record"'));
    // Tool arguments are any JSON object: only the depth check stands between them and a recursion.
    lines[at] = lines[at].replace('"arguments":{', `"arguments":{"deep":${deepArray(10_000)},`);
    const res = await importBundle(target, lines.join("\n"));
    expect(res.status, res.text).toBe(400);
    expect((res.json as { error: string }).error).toBe(
      `line ${at + 1}: nested deeper than 100 levels of arrays and objects`,
    );
  });

  it("refuses a medium whose bytes do not match its hash", async () => {
    const lines = bundle.trimEnd().split("\n");
    const at = lines.findIndex((l) => l.includes('"kind":"media"'));
    const media = JSON.parse(lines[at]) as { data: string };
    lines[at] = JSON.stringify({ ...media, data: Buffer.from("not the png").toString("base64") });
    const res = await importBundle(target, lines.join("\n"));
    expect(res.status).toBe(400);
    expect((res.json as { error: string }).error).toMatch(new RegExp(`^line ${at + 1}: media bytes hash`));
  });

  it("leaves nothing of an import whose write fails half-way (the database refusing its events)", async () => {
    const fresh = await startTestServer({});
    try {
      const prisma = fresh.app.database.prisma;
      // A real database error from the fourth event on, whatever session id the import takes.
      await prisma.$executeRawUnsafe(
        `CREATE TRIGGER refuse_import BEFORE INSERT ON "MonitorEvent" WHEN NEW."seq" >= 4
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      );
      const res = await importBundle(fresh, bundle);
      expect(res.status, res.text).toBeGreaterThanOrEqual(500);
      await prisma.$executeRawUnsafe("DROP TRIGGER refuse_import");
      expect(((await fresh.api("GET", "/api/sessions")).json as { sessions: unknown[] }).sessions).toHaveLength(0);
      expect(await prisma.monitorEvent.count()).toBe(0);
      expect(await prisma.modelCall.count()).toBe(0);
      expect(await prisma.sessionSnapshot.count()).toBe(0);
      // And the same bundle then imports whole, under its own id.
      const again = await importBundle(fresh, bundle);
      expect(again.status, again.text).toBe(201);
      expect(importedSessionSchema.parse(again.json).id).toBe(sessionId);
    } finally {
      await fresh.close();
    }
  });

  it("refuses viewers (403)", async () => {
    const created = await target.api("POST", "/api/accounts", { name: "export-viewer", role: "viewer" });
    const { token } = created.json as { token: string };
    expect((await importBundle(target, bundle, token)).status).toBe(403);
  });
});

describe("size limits", () => {
  it("refuses a line over 16 MiB (413 naming it) as soon as it is that long, and goes on serving", async () => {
    const lineBytes = 96 * 1024 * 1024;
    const res = await importLongLine(target, lineBytes);
    expect(res.status, res.text).toBe(413);
    expect(JSON.parse(res.text)).toEqual({
      error: "line 2: longer than 16777216 bytes (the most a bundle line may have)",
      fields: [{ path: "line 2", message: "longer than 16777216 bytes (the most a bundle line may have)", in: "body" }],
    });
    // Answered before the line was complete: it was never held whole. (How much more the client wrote
    // before the answer reached it depends on the machine's load, so the bound is the line itself.)
    expect(res.sent).toBeLessThan(lineBytes);
    expect((await target.api("GET", "/api/health")).status).toBe(200);
    expect((await importBundle(target, bundle)).status).toBe(201);
  });

  it("refuses a bundle over export.maxImportBytes (413) and media over export.maxMediaBytes (413)", async () => {
    const small = await startTestServer({ config: { export: { maxImportBytes: Buffer.byteLength(bundle) - 1 } } });
    const tiny = await startTestServer({ config: { export: { maxMediaBytes: PNG.length - 1 } } });
    try {
      const over = await importBundle(small, bundle);
      expect(over.status).toBe(413);
      // The last line holds the byte that went over.
      expect((over.json as { error: string }).error).toBe(
        `line ${bundle.trimEnd().split("\n").length}: the bundle is larger than ${Buffer.byteLength(bundle) - 1} bytes (config export.maxImportBytes)`,
      );
      expect(((await small.api("GET", "/api/sessions")).json as { sessions: unknown[] }).sessions).toHaveLength(0);
      const res = await importBundle(tiny, bundle);
      expect(res.status, res.text).toBe(201);
      const { id } = importedSessionSchema.parse(res.json);
      const refused = await exportText(tiny, id);
      expect(refused.status).toBe(413);
      expect(refused.text).toContain("export.maxMediaBytes");
    } finally {
      await small.close();
      await tiny.close();
    }
  });
});

// Bad input over every route (and the socket): malformed JSON, wrong types, huge strings, unknown
// ids, odd paths, missing or wrong auth. Never a 5xx, the server stays up, and meanwhile another
// session keeps being served by the engine.
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { apiErrorSchema } from "../../lib/api/schemas";
import { connectMonitor, request, startTestServer, type TestServer } from "./support";

let server: TestServer;
const jsonRpcErrorSchema = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number(), message: z.string() }),
});

beforeAll(async () => {
  // Wrong tokens are part of the fuzz; throttling them has its own tests (auth.test.ts).
  server = await startTestServer({ auth: { limits: { freeFailures: 1_000_000, globalBurst: 1_000_000 } } });
});

afterAll(async () => {
  await server.close();
});

/** Deterministic PRNG (mulberry32), so a failure replays with the same inputs. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUTES: [string, string][] = [
  ["GET", "/api/health"],
  ["POST", "/api/auth/login"],
  ["POST", "/api/auth/logout"],
  ["GET", "/api/auth/me"],
  ["GET", "/api/sessions"],
  ["GET", "/api/sessions?limit=2&cursor=:id"],
  ["POST", "/api/sessions"],
  ["GET", "/api/sessions/:id"],
  ["POST", "/api/sessions/:id/messages"],
  ["GET", "/api/sessions/:id/events"],
  ["GET", "/api/sessions/:id/history"],
  ["GET", "/api/tools"],
  ["PATCH", "/api/tools/:name"],
  ["GET", "/api/tools/audit"],
  ["GET", "/api/providers"],
  ["GET", "/api/icons/:id"],
  ["POST", "/api/mcp"],
];

const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS", "HEAD"];

function fuzzer(random: () => number, ids: { session: string }) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const strings = (): string =>
    pick([
      "",
      " ",
      "a",
      "麦麦",
      "x".repeat(8_001),
      "y".repeat(40_000),
      "\u0000\u0001\u202e",
      "../../etc/passwd",
      "<script>alert(1)</script>",
      "' OR 1=1 --",
      "%E0%A4%A",
      "😀".repeat(300),
      ids.session,
      "query_jargon",
    ]);
  const value = (depth: number): unknown => {
    const kind = Math.floor(random() * (depth > 2 ? 6 : 8));
    switch (kind) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER]);
      case 3:
      case 4:
        return strings();
      case 5:
        return undefined;
      case 6:
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      default: {
        const keys = [
          "userId",
          "userName",
          "text",
          "enabled",
          "sessionId",
          "reason",
          "token",
          "name",
          "id",
          "isGroupChat",
          "afterSeq",
          "__proto__",
          "constructor",
        ];
        const out: Record<string, unknown> = {};
        for (let i = Math.floor(random() * 6); i > 0; i--) out[pick(keys)] = value(depth + 1);
        return out;
      }
    }
  };
  const segment = (valid: string): string =>
    random() < 0.4
      ? valid
      : encodeURIComponent(
          pick(["ghost", "_global", "*", "a".repeat(300), "x y", "..", "query_jargon", "no_such_tool", "%", "%00"]),
        );
  const path = (template: string): string => {
    let p = template.replace(":id", segment(ids.session)).replace(":name", segment("query_jargon"));
    if (random() < 0.3)
      p += pick([
        "?afterSeq=-5",
        "?limit=abc&limit=2",
        "?afterSeq=1e400",
        "?sessionId=%ZZ",
        "?limit=99999999999999999999",
        "?x=" + "q".repeat(3000),
        "?afterSeq=3&limit=1",
      ]);
    if (random() < 0.05) p = p.replace("/api/", "/api//");
    return p;
  };
  /** A valid body for the route with one field replaced by a random value (or left valid). */
  const nearlyValid = (template: string): Record<string, unknown> => {
    const base: Record<string, unknown> = template.endsWith("/messages")
      ? { userId: "u1", userName: "Alice", text: "hello" }
      : template.startsWith("/api/tools/")
        ? { enabled: random() < 0.5, sessionId: ids.session, reason: "fuzz" }
        : template === "/api/auth/login"
          ? { token: "test-operator-token-0123456789" }
          : { name: "fuzzed" };
    const keys = Object.keys(base);
    if (random() < 0.7) base[pick(keys)] = value(1);
    return base;
  };
  const body = (template: string): { raw?: string | Buffer; json?: unknown; headers: Record<string, string> } => {
    const r = random();
    if (r < 0.3) return { json: nearlyValid(template), headers: {} };
    if (r < 0.5) return { json: value(0), headers: {} };
    if (r < 0.6) return { raw: '{"userId": "u1", "text": ', headers: { "content-type": "application/json" } };
    if (r < 0.7)
      return {
        raw: Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256))),
        headers: { "content-type": "application/json" },
      };
    if (r < 0.75) return { raw: "z".repeat(70 * 1024), headers: { "content-type": "application/json" } };
    if (r < 0.8) return { raw: "a=1&b=2", headers: { "content-type": "text/plain" } };
    if (r < 0.85) return { raw: "[1,2,3]", headers: { "content-type": "application/json; charset=latin1" } };
    return { json: undefined, headers: {} };
  };
  // Mostly authenticated, so most requests reach validation and the handlers.
  const token = (): string | null | undefined =>
    pick([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      null,
      "wrong-token-wrong-token",
      "",
      "Bearer",
    ]);
  return { pick, path, body, token };
}

it("never answers 5xx to bad input, stays up and keeps serving another session", async () => {
  const bystander = await server.createSession({ name: "bystander" });
  const fuzzTarget = await server.createSession({ name: "fuzz target" });
  const random = rng(20261130);
  const f = fuzzer(random, { session: fuzzTarget });
  const failures: string[] = [];
  let sent = 0;

  const conversation = (async () => {
    // A real conversation in another session while the fuzzer runs: it must get its replies.
    for (let i = 0; i < 3; i++) {
      const res = await server.say(bystander, `麦麦，第${i + 1}个问题是什么？`, { atBot: true, messageId: `b-${i}` });
      expect(res.status).toBe(202);
      await server.waitForEvent(bystander, (e) => e.type === "message.sent" && e.data.replyTo === `b-${i}`, 20_000);
    }
  })();

  const worker = async () => {
    while (sent < 700) {
      sent++;
      const [routeMethod, template] = f.pick(ROUTES);
      const method = random() < 0.8 ? routeMethod : f.pick(METHODS);
      const route = f.path(template);
      const b = method === "GET" || method === "HEAD" ? { headers: {} } : f.body(template);
      const res = await request(server.url, method, route, "json" in b ? b.json : undefined, {
        token: f.token(),
        raw: "raw" in b ? b.raw : undefined,
        headers: b.headers,
      });
      if (res.status >= 500)
        failures.push(`${method} ${route.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 200)}`);
      // /api/mcp speaks JSON-RPC: past auth, its errors carry a JSON-RPC error object instead of ours.
      const errorBody = route.startsWith("/api/mcp") ? z.union([apiErrorSchema, jsonRpcErrorSchema]) : apiErrorSchema;
      if (res.status >= 400 && method !== "HEAD" && !errorBody.safeParse(res.json).success) {
        failures.push(
          `${method} ${route.slice(0, 120)} -> ${res.status} without an error body: ${res.text.slice(0, 100)}`,
        );
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker(), worker(), worker()]);
  await conversation;

  expect(failures).toEqual([]);
  expect(server.logs.filter((l) => l.includes("[http]"))).toEqual([]);
  const health = await server.api("GET", "/api/health");
  expect(health.json).toMatchObject({ ok: true });
});

it("survives garbage on the socket: odd events and payloads never drop the server", async () => {
  const client = await connectMonitor(server.url);
  const random = rng(7);
  const junk: unknown[] = [
    null,
    1,
    "x",
    [],
    {},
    { sessionId: 5 },
    { sessionId: "*", afterSeqs: { a: -1 } },
    { sessionId: "a".repeat(500) },
    { sessionId: "*", afterSeq: 1.5 },
    { sessionId: "*", afterSeqs: Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`s${i}`, 1])) },
    { sessionId: "one", afterSeqs: { one: 3 } },
    { sessionId: "*", afterSeqs: { "bad key": 1 } },
  ];
  for (let i = 0; i < 200; i++) {
    const event = ["subscribe", "unsubscribe", "nonsense", "event"][Math.floor(random() * 4)];
    client.socket.emit(event, junk[Math.floor(random() * junk.length)]);
  }
  const ack = await client.subscribe({ sessionId: "*" });
  expect(ack.ok).toBe(true);
  expect(client.socket.connected).toBe(true);
  client.close();
  expect((await server.api("GET", "/api/health")).status).toBe(200);
});

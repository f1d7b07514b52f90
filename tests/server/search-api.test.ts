// GET /api/search on the real server: a message said to a live session becomes searchable as it lands
// (the bus pokes the indexer), hits name the session, seq and cycle; viewers may search; bad
// parameters answer 400 naming the field. On SQLite (the FTS5 index file) and on Postgres (the index
// tables beside the PostgresLedger's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdAccountSchema } from "../../lib/api/accounts";
import { searchResultSchema } from "../../lib/api/search";
import { usePostgresDatabases } from "../db/helpers";
import { until } from "../support/until";
import { startTestServer, type TestServer } from "./support";

const pgDbs = usePostgresDatabases();
const databases: [string, () => Promise<string | undefined>][] = [
  ["SQLite", async () => undefined], // startTestServer's own temp file
  ["Postgres", () => pgDbs.url()],
];

describe.each(databases)("GET /api/search on %s", (_name, databaseUrl) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: await databaseUrl() });
    // The server does not wait for its index to open; until then searches answer 503 (checked below).
    await server.app.search.ready;
  });
  afterAll(async () => {
    await server.close();
  });

  const search = async (query: string, token?: string) => {
    const res = await server.api("GET", `/api/search?${query}`, undefined, token ? { token } : {});
    expect(res.status, res.text).toBe(200);
    return searchResultSchema.parse(res.json);
  };

  it("finds a message said to a live session, and the cycle that answered it", async () => {
    const sessionId = await server.createSession({ name: "search" });
    expect((await server.say(sessionId, "请帮我查一下明天上海的天气")).status).toBe(202);
    const found = await until(
      async () => {
        // An empty list is not found yet (the index follows the ledger within about a second).
        const { hits } = await search(`q=${encodeURIComponent("上海的天气")}`);
        return hits.length ? hits : undefined;
      },
      "the message to be searchable",
      { timeoutMs: 20_000 },
    );
    expect(found).toEqual([expect.objectContaining({ sessionId, kind: "message", failed: false })]);
    const event = (await server.events(sessionId)).find((e) => e.seq === found[0].seq);
    expect(event?.type).toBe("message.ingested");
    // The cycle it started ends; the gate's and the planner's texts are found with their cycle id.
    const end = await server.waitForEvent(sessionId, (e) => e.type === "cycle.end", 20_000);
    await server.app.search.caughtUp();
    const events = await server.events(sessionId);
    const gate = events.find((e) => e.type === "timing_gate.result");
    if (gate?.type !== "timing_gate.result") throw new Error("no timing gate result");
    const text = [...(gate.data.reasoningContent || gate.data.content)].slice(0, 8).join("");
    expect(text.length).toBeGreaterThanOrEqual(3);
    const hits = (await search(`q=${encodeURIComponent(`"${text}"`)}&sessionId=${sessionId}&kind=gate`)).hits;
    expect(hits).toContainEqual(
      expect.objectContaining({ sessionId, seq: gate.seq, kind: "gate", cycleId: gate.data.cycleId }),
    );
    expect(end.type === "cycle.end" && end.data.cycleId).toBe(gate.data.cycleId);
  });

  it("answers 503 with Retry-After while the index is not open", async () => {
    const other = await startTestServer({ databaseUrl: await databaseUrl() });
    try {
      const res = await other.api("GET", "/api/search?q=abc");
      if (res.status === 503) expect(res.headers.get("retry-after")).toBe("1");
      else expect(res.status).toBe(200); // it opened first: nothing to check on this machine
      await other.app.search.ready;
      expect((await other.api("GET", "/api/search?q=abc")).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("lets a viewer search", async () => {
    const res = await server.api("POST", "/api/accounts", { name: "reader", role: "viewer" });
    const { token } = createdAccountSchema.parse(res.json);
    expect((await search("q=anything", token)).hits).toEqual([]);
  });

  it("answers 400 naming the parameter for bad input, and any query text with 200", async () => {
    for (const query of [
      "",
      "q=",
      "q=%20%20",
      "q=a&kind=nope",
      "q=a&limit=0",
      "q=a&limit=9999",
      "q=a&from=2026-12-02&to=2026-12-01",
      "q=a&failed=maybe",
      `q=${"x".repeat(201)}`,
      "q=a&sessionId=a%2Fb",
      "q=a&before=1.5",
    ]) {
      const res = await server.api("GET", `/api/search?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.text, query).toMatch(/error/);
    }
    for (const text of ['"', "NEAR(", "a OR", "*", "'--", "%_\\"]) await search(`q=${encodeURIComponent(text)}`);
  });
});

// Session-scoped requests routed to the session's owner over real HTTP on loopback: three "nodes", each
// an HTTP server with its own SessionProxy and a small directory the test moves sessions in. The local
// handler stands for the router: it echoes what it got, so the tests see what reached the owner.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { ANSWERED_BY_HEADER, PROXIED_BY_HEADER, SessionProxy } from "../../server/cluster/session-proxy";
import type { SessionDirectory } from "../../server/kernel/cluster";
import { HttpError } from "../../server/http/errors";
import { DRAINING_HEADER, NOT_OWNER_HEADER } from "../../server/http/requests";
import { until } from "../support/until";

/** Who owns what, as each node's directory answers: the test changes it to move a session. */
class MapDirectory implements SessionDirectory {
  lookups = 0;
  constructor(
    readonly nodeId: string,
    readonly owners: Map<string, string>,
  ) {}
  async ownerOf(sessionId: string): Promise<string> {
    this.lookups++;
    const owner = this.owners.get(sessionId);
    if (!owner) throw new Error(`no owner for ${sessionId}`);
    return owner;
  }
  ownsLocally(sessionId: string): boolean {
    return this.owners.get(sessionId) === this.nodeId;
  }
  /** The map looked at every 50 ms, as the real one reads the lease every tick. */
  async ownerLost(sessionId: string, owner: string, signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (this.owners.get(sessionId) !== owner) return true;
      await delay(50, undefined, { signal }).catch(() => undefined);
    }
    return false;
  }
}

interface TestNode {
  id: string;
  url: string;
  server: Server;
  proxy: SessionProxy;
  directory: MapDirectory;
  /** Requests its local handler answered. */
  served: { method: string; url: string; body: string; headers: IncomingMessage["headers"] }[];
  /** Replaces the local handler (a node that hangs, drains, streams…). */
  localOverride?: (req: IncomingMessage, res: ServerResponse) => void;
}

const owners = new Map<string, string>();
const nodes = new Map<string, TestNode>();
const downNodes = new Set<string>();

async function startNode(id: string, opts: { retryForMs?: number; answerTimeoutMs?: number } = {}): Promise<TestNode> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const directory = new MapDirectory(id, owners);
  const proxy = new SessionProxy({
    nodeId: id,
    selfUrl: url,
    directory,
    nodeUrl: async (nodeId) => (downNodes.has(nodeId) ? undefined : nodes.get(nodeId)?.url),
    admit: (req) =>
      req.headers.authorization === "Bearer wrong" ? new HttpError(401, "operator token required") : null,
    maxBodyBytes: 1024,
    retryForMs: opts.retryForMs ?? 5_000,
    answerTimeoutMs: opts.answerTimeoutMs ?? 5_000,
    logger: { warn: () => undefined },
  });
  const node: TestNode = { id, url, server, proxy, directory, served: [] };
  const local = (req: IncomingMessage, res: ServerResponse) => {
    if (node.localOverride) return node.localOverride(req, res);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      node.served.push({ method: req.method ?? "", url: req.url ?? "", body, headers: req.headers });
      res.statusCode = req.method === "POST" ? 202 : 200;
      res.setHeader("content-type", "application/json");
      res.setHeader("x-served-by", id);
      res.end(JSON.stringify({ node: id, body }));
    });
  };
  // What requests.ts does with a cluster node's routing.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = proxy.sessionOf(req);
    if (sessionId === undefined) return local(req, res);
    void proxy.handle(req, res, sessionId, () => local(req, res));
  });
  nodes.set(id, node);
  return node;
}

async function stopNode(node: TestNode): Promise<void> {
  node.proxy.close();
  node.server.closeAllConnections();
  await new Promise((resolve) => node.server.close(resolve));
}

afterEach(async () => {
  for (const node of nodes.values()) await stopNode(node);
  nodes.clear();
  owners.clear();
  downNodes.clear();
});

const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer tok", ...headers },
    body: JSON.stringify(body),
  });

describe("SessionProxy", () => {
  it("answers a session this node owns itself, without asking the directory", async () => {
    const a = await startNode("a");
    owners.set("s1", "a");
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "hi" });
    expect(res.status).toBe(202);
    expect((await res.json()) as unknown).toEqual({ node: "a", body: '{"text":"hi"}' });
    expect(a.directory.lookups).toBe(0);
  });

  it("forwards to the owner with the caller's credentials, Host, query and body, and passes its answer back", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    const res = await fetch(`${a.url}/api/sessions/s1/messages?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer tok", cookie: "maisaka_login=abc" },
      body: JSON.stringify({ text: "你好" }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-served-by")).toBe("b");
    expect(res.headers.get(ANSWERED_BY_HEADER)).toBe("b");
    expect((await res.json()) as unknown).toEqual({ node: "b", body: '{"text":"你好"}' });
    expect(a.served).toEqual([]);
    const [got] = b.served;
    expect(got.url).toBe("/api/sessions/s1/messages?x=1");
    expect(got.headers.authorization).toBe("Bearer tok");
    expect(got.headers.cookie).toBe("maisaka_login=abc");
    // The owner's same-origin check sees the Host the caller used.
    expect(got.headers.host).toBe(new URL(a.url).host);
    expect(got.headers[PROXIED_BY_HEADER]).toBe("a");
  });

  it("leaves other paths to the router: the session list, import, other resources, malformed ids", async () => {
    const a = await startNode("a");
    owners.set("s1", "b");
    for (const path of ["/api/sessions", "/api/sessions/import", "/api/tools", `/api/sessions/${"x".repeat(200)}`]) {
      expect((await post(a.url, path, {})).status).toBe(202);
    }
    expect(a.served).toHaveLength(4);
    expect(a.directory.lookups).toBe(0);
  });

  it("refuses wrong credentials itself (401) instead of forwarding them", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "x" }, { authorization: "Bearer wrong" });
    expect(res.status).toBe(401);
    expect(b.served).toEqual([]);
  });

  it("follows a session that moved: the old owner says 421 and the request goes to the new one", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    const c = await startNode("c");
    owners.set("s1", "b");
    // b lost the session to c, but a's view is a moment behind.
    b.localOverride = () => {
      throw new Error("b must not run it");
    };
    b.directory.ownsLocally = () => false;
    b.directory.ownerOf = async () => {
      owners.set("s1", "c");
      return "c";
    };
    const res = await post(a.url, "/api/sessions/s1/send", { text: "x" });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-served-by")).toBe("c");
    expect(c.served.map((s) => s.headers[PROXIED_BY_HEADER])).toEqual(["a"]);
  });

  it("retries while the owner is dead until the new owner (this node) takes the session, body kept", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    // Its URL still known: the tries meet a refused connection.
    await stopNode(b);
    const started = post(a.url, "/api/sessions/s1/messages", { text: "kept" });
    // The lease of the dead node runs out; a is the next owner.
    await until(() => a.directory.lookups >= 3, "a few tries against the dead owner");
    owners.set("s1", "a");
    const res = await started;
    expect(res.status).toBe(202);
    expect((await res.json()) as unknown).toEqual({ node: "a", body: '{"text":"kept"}' });
  });

  it("retries an owner that does not answer in time or is shutting down", async () => {
    const a = await startNode("a", { answerTimeoutMs: 300 });
    const b = await startNode("b");
    const c = await startNode("c");
    owners.set("s1", "b");
    b.localOverride = () => {
      owners.set("s1", "c");
      // Paused: never answers.
    };
    c.localOverride = (_req, res) => {
      owners.set("s1", "a");
      res.writeHead(503, { [DRAINING_HEADER]: "1", "content-type": "application/json" });
      res.end('{"error":"server is shutting down"}');
    };
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "x" });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-served-by")).toBe("a");
  });

  it("retries when the owner's engine says the session is another node's (503 marked not-owner)", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    b.localOverride = (_req, res) => {
      owners.set("s1", "a");
      res.writeHead(503, { [NOT_OWNER_HEADER]: "1", "retry-after": "1", "content-type": "application/json" });
      res.end('{"error":"session s1 is run by another node of the cluster (or moving to one): retry"}');
    };
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "x" });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-served-by")).toBe("a");
  });

  it("passes an owner's own 503 (its database is down) on instead of retrying it", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    b.localOverride = (_req, res) => {
      res.writeHead(503, { "retry-after": "10", "content-type": "application/json" });
      res.end('{"error":"the database cannot take writes"}');
    };
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "x" });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("10");
    expect(a.directory.lookups).toBe(1);
  });

  it("answers 503 once the bound passes with no reachable owner", async () => {
    const a = await startNode("a", { retryForMs: 400 });
    owners.set("s1", "ghost");
    downNodes.add("ghost");
    const res = await post(a.url, "/api/sessions/s1/messages", { text: "x" });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as { error: string }).error).toMatch(/no reachable owner/);
    expect(a.directory.lookups).toBeGreaterThan(1);
  });

  it("stops trying once the caller hung up", async () => {
    const a = await startNode("a", { retryForMs: 20_000 });
    owners.set("s1", "ghost");
    downNodes.add("ghost");
    const aborted = new AbortController();
    const call = fetch(`${a.url}/api/sessions/s1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer tok" },
      body: "{}",
      signal: aborted.signal,
    }).catch((e: unknown) => e);
    await until(() => a.directory.lookups >= 2, "a few tries");
    aborted.abort();
    await call;
    // The try in progress ends, then no more lookups.
    await until(async () => {
      const before = a.directory.lookups;
      await new Promise((r) => setTimeout(r, 1_200));
      return a.directory.lookups === before;
    }, "the lookups stop");
  });

  it("refuses a body over the limit with 413, and streams a long answer through", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    owners.set("s1", "b");
    expect((await post(a.url, "/api/sessions/s1/messages", { text: "x".repeat(2_000) })).status).toBe(413);
    b.localOverride = (_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      let i = 0;
      const timer = setInterval(() => {
        res.write(`${JSON.stringify({ line: i })}\n`);
        if (++i === 50) {
          clearInterval(timer);
          res.end();
        }
      }, 1);
    };
    const res = await fetch(`${a.url}/api/sessions/s1/export`, { headers: { authorization: "Bearer tok" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect((await res.text()).trim().split("\n")).toHaveLength(50);
  });
});

// Tool icons reach the dashboard without the operator's browser contacting a third party: the real
// server rewrites a real MCP server's http icons to /api/icons/<id> and fetches them itself, with
// type, size, redirect and address checks (SSRF), from a real HTTP icon host on loopback.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiErrorSchema, toolListSchema, type ToolView } from "../../lib/api/schemas";
import { addressClass, IconProxy } from "../../server/http/services/icon-proxy";
import { iconServerConfig } from "../support/mcp-servers";
import { FAST_CHAT, request, startTestServer, type TestServer } from "./support";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** The third party: counts its hits and records what each request carried. */
let host: Server;
let hostUrl = "";
const hits = new Map<string, number>();
const seen: IncomingHttpHeaders[] = [];

const ROUTES = ["ok.png", "big.png", "page.html", "to-ok", "to-metadata", "to-file", "loop", "slow", "missing"];

beforeAll(async () => {
  host = createServer((req, res) => {
    const name = (req.url ?? "/").slice(1);
    hits.set(name, (hits.get(name) ?? 0) + 1);
    seen.push(req.headers);
    switch (name) {
      case "ok.png":
        return void res.writeHead(200, { "content-type": "image/png" }).end(PNG);
      case "big.png":
        return void res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(300 * 1024));
      case "page.html":
        return void res.writeHead(200, { "content-type": "text/html" }).end("<script>alert(1)</script>");
      case "to-ok":
        return void res.writeHead(302, { location: "/ok.png" }).end();
      case "to-metadata":
        return void res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      case "to-file":
        return void res.writeHead(302, { location: "file:///etc/passwd" }).end();
      case "loop":
        return void res.writeHead(302, { location: "/loop" }).end();
      case "slow":
        return; // never answers
      default:
        return void res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

afterAll(async () => {
  host.closeAllConnections();
  await new Promise((resolve) => host.close(resolve));
});

async function serverWithIcons(allowPrivate: boolean): Promise<TestServer> {
  const icons = ROUTES.map((r) => `${hostUrl}/${r}`).join(",");
  return startTestServer({
    icons: { allowPrivate, timeoutMs: 1_000 },
    config: {
      ...FAST_CHAT,
      mcp: {
        servers: [iconServerConfig("icons", { ICON_SERVER_REMOTE_ICONS: icons })],
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    },
  });
}

async function paint(server: TestServer): Promise<ToolView> {
  const { tools } = toolListSchema.parse((await server.api("GET", "/api/tools")).json);
  const tool = tools.find((t) => t.name.endsWith("paint"));
  if (!tool) throw new Error(`no paint tool in ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

describe("icon proxy on the real server", () => {
  let server: TestServer;
  let byRoute: Map<string, string>;
  beforeAll(async () => {
    server = await serverWithIcons(true);
    const tool = await paint(server);
    // Data icons stay; the http ones come back in order as proxy paths.
    expect(tool.icons.slice(0, 2).map((i) => i.src.slice(0, 11))).toEqual(["data:image/", "data:image/"]);
    const proxied = tool.icons.slice(2).map((i) => i.src);
    expect(proxied).toHaveLength(ROUTES.length);
    byRoute = new Map(ROUTES.map((r, i) => [r, proxied[i]]));
  });
  afterAll(() => server.close());

  it("lists no external URL: every icon is data: or /api/icons/<id>", async () => {
    const listing = (await server.api("GET", "/api/tools")).text;
    expect(listing).not.toContain(hostUrl);
    expect(listing).not.toMatch(/"src":"https?:/);
    for (const src of byRoute.values()) expect(src).toMatch(/^\/api\/icons\/[A-Za-z0-9_-]{32}$/);
  });

  it("serves an image fetched once server-side, under a sandboxing CSP, sending no credential", async () => {
    const before = hits.get("ok.png") ?? 0;
    const res = await fetch(`${server.url}${byRoute.get("ok.png")}`, {
      headers: { authorization: "Bearer test-operator-token-0123456789" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await server.api("GET", byRoute.get("ok.png") ?? "")).status).toBe(200);
    expect(hits.get("ok.png")).toBe(before + 1);
    for (const headers of seen) {
      expect(headers.authorization).toBeUndefined();
      expect(headers.cookie).toBeUndefined();
      expect(headers.referer).toBeUndefined();
    }
    // A redirect within the same (allowed) host is followed.
    expect((await server.api("GET", byRoute.get("to-ok") ?? "")).status).toBe(200);
  });

  it("refuses what is not a small image: wrong type, too big, bad redirects, slow or failing sources", async () => {
    for (const [route, message] of [
      ["page.html", /not an image type: text\/html/],
      ["big.png", /larger than 262144 bytes/],
      ["to-metadata", /169\.254\.169\.254 is refused/],
      ["to-file", /redirect to file: refused/],
      ["loop", /too many redirects/],
      ["slow", /timed out/],
      ["missing", /answered 404/],
    ] as const) {
      const res = await server.api("GET", byRoute.get(route) ?? "");
      expect(res.status, route).toBe(502);
      expect(apiErrorSchema.parse(res.json).error, route).toMatch(message);
    }
    expect(hits.get("loop")).toBe(4);
  });

  it("answers an unknown id 404, a malformed one 400, and nothing without the operator's credential", async () => {
    expect((await server.api("GET", `/api/icons/${"A".repeat(32)}`)).status).toBe(404);
    expect((await server.api("GET", "/api/icons/not-an-id")).status).toBe(400);
    expect((await request(server.url, "GET", byRoute.get("ok.png") ?? "", undefined, { token: null })).status).toBe(
      401,
    );
  });
});

describe("icon proxy address policy", () => {
  it("refuses loopback and private sources by default", async () => {
    const server = await serverWithIcons(false);
    try {
      const src = (await paint(server)).icons[2].src;
      const res = await server.api("GET", src);
      expect(res.status).toBe(502);
      expect(apiErrorSchema.parse(res.json).error).toMatch(/127\.0\.0\.1 is refused/);
    } finally {
      await server.close();
    }
  });

  it("classifies addresses, and refuses names resolving to a refused address", async () => {
    expect(addressClass("93.184.216.34")).toBe("public");
    expect(addressClass("2606:4700::1111")).toBe("public");
    for (const a of ["127.0.0.1", "10.1.2.3", "172.31.0.1", "192.168.1.1", "::1", "fd00::1", "::ffff:127.0.0.1"]) {
      expect(addressClass(a), a).toBe("private");
    }
    for (const a of ["169.254.169.254", "0.0.0.0", "224.0.0.1", "fe80::1", "::", "::ffff:169.254.169.254", "x"]) {
      expect(addressClass(a), a).toBe("never");
    }
    const proxy = new IconProxy();
    const id = proxy.rewrite("http://localhost:9/icon.png")?.slice("/api/icons/".length) ?? "";
    await expect(proxy.get(id)).rejects.toThrow(/localhost resolves to (127\.0\.0\.1|::1), which is refused/);
    expect(proxy.rewrite("javascript:alert(1)")).toBeNull();
    expect(proxy.rewrite("http://user:pw@example.com/i.png")).toBeNull();
    expect(proxy.rewrite("data:image/png;base64,AA==")).toBe("data:image/png;base64,AA==");
    expect(proxy.rewrite("data:text/html;base64,AA==")).toBeNull();
  });
});

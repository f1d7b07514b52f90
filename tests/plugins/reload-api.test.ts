// GET /api/plugins and POST /api/plugins/reload on the real server with a real Runner: loaded plugins
// with their tools and hook points, failed ones with their error; a reload starts a new Runner that
// picks up an edited plugin, and it is audited with its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginsViewSchema } from "../../lib/api/sources";
import { FAST_CHAT, startTestServer, type TestServer } from "../server/support";
import { PluginFolder } from "./support";

const folder = new PluginFolder()
  .add("greeter", {
    source: `export default class G extends Plugin {
  @Tool({ name: "greet", description: "greets", parameters: [] })
  greet() { return "hi"; }
  @Hook("maisaka.planner.before_request")
  watch() { return undefined; }
}`,
  })
  .add("broken", { source: `throw new Error("plugin bug at load");` });
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ plugins: true, config: { ...FAST_CHAT, plugins: { dirs: [folder.root] } } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  folder.dispose();
});

describe("plugins over the API", () => {
  it("shows the Runner, loaded plugins with tools and hook points, failed ones with errors; reloads", async () => {
    const first = pluginsViewSchema.parse((await server.api("GET", "/api/plugins")).json);
    expect(first.runner.phase).toBe("ready");
    expect(first.loaded).toEqual([
      expect.objectContaining({ id: "greeter", tools: ["greet"], hooks: ["maisaka.planner.before_request#watch"] }),
    ]);
    expect(first.failed).toEqual([
      expect.objectContaining({ id: "broken", error: expect.stringMatching(/plugin bug/) }),
    ]);

    folder.add("broken", {
      source: `export default class B extends Plugin { @Tool({ name: "fixed", description: "now loads", parameters: [] }) fixed() { return "ok"; } }`,
    });
    const res = await server.api("POST", "/api/plugins/reload", { reason: "fixed the broken plugin" });
    expect(res.status, res.text).toBe(200);
    const after = pluginsViewSchema.parse(res.json);
    expect(after.runner).toMatchObject({ phase: "ready" });
    expect(after.runner.generation).toBeGreaterThan(first.runner.generation);
    expect(after.runner.pid).not.toBe(first.runner.pid);
    expect(after.loaded.map((p) => p.id).sort()).toEqual(["broken", "greeter"]);
    expect(after.failed).toEqual([]);
    const audit = (await server.api("GET", "/api/audit?action=plugins.reload")).json as {
      entries: { reason: string; after: { failed: string[] } }[];
    };
    expect(audit.entries[0]).toMatchObject({ reason: "fixed the broken plugin", after: { failed: [] } });
    expect((await server.api("POST", "/api/plugins/reload", { reason: "" })).status).toBe(400);
  });
});

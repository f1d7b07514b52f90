// A real Runner process over temporary plugin folders: loading and load failures, duplicates, legacy
// actions, result normalisation, timeouts, the Runner's environment, the handshake, and restarts
// after a crash and after a hang.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDK_VERSION } from "../../server/plugins/sdk";
import { IpcConnection } from "../../server/plugins/ipc/connection";
import { plannerPlacement } from "../../server/engine/planner";
import { ToolRegistry } from "../../server/tools/registry";
import { until } from "../support/until";
import { PluginFolder, startRuntime, type StartedRuntime } from "./support";

const RUNNER_MAIN = fileURLToPath(new URL("../../server/plugins/runner/main.ts", import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

const ALPHA = `
export default class Alpha extends Plugin {
  @Tool({ name: "echo", description: "echoes", parameters: [{ name: "text", type: "string", required: true }] })
  echo(args: { text: string }, ctx: { sessionId: string; callId: string }) {
    return { content: "echo: " + args.text, structuredContent: { sessionId: ctx.sessionId, callId: ctx.callId } };
  }

  @Tool({ name: "shared", description: "alpha's" })
  shared() { return "from alpha"; }

  @Tool({ name: "never", description: "never answers" })
  never() { return new Promise(() => {}); }

  @Tool({ name: "exit_now", description: "ends the process" })
  exitNow() { process.exit(3); }

  @Tool({ name: "spin", description: "blocks the event loop" })
  spin() { for (;;) {} }

  @Tool({ name: "returns", description: "returns what it is asked to", parameters: [{ name: "kind", type: "string", required: true }] })
  returns(args: { kind: string }) {
    switch (args.kind) {
      case "pair_ok": return [true, "done"];
      case "pair_fail": return [false, "nope"];
      case "object_error": return { error: "bad input" };
      case "object_message": return { message: "hello" };
      case "object_plain": return { celsius: 21 };
      case "object_failed": return { success: false, message: "could not" };
      case "object_failed_silently": return { success: false };
      case "circular": { const o: Record<string, unknown> = { a: 1 }; o.self = o; return o; }
      case "bigint": return { big: 10n };
      case "function": return () => 1;
      case "undefined": return undefined;
      case "number": return 42;
      case "huge": return "x".repeat(300_000);
      case "weird": return { success: "yes", content: { nested: [1, 2] } };
      case "items": return { content: "", contentItems: [{ contentType: "text", text: "item text" }, { bogus: true }] };
      case "pause": return { content: "stop here", metadata: { pauseExecution: true, pluginId: "forged" } };
      case "throw": throw new TypeError("plugin bug");
      case "reject": return Promise.reject(new RangeError("async plugin bug"));
      default: return "unknown kind";
    }
  }

  @Action({ name: "legacy_greet", description: "greets someone", actionParameters: { target: "who to greet", mood: "how" }, actionRequire: ["when someone says hi"] })
  greet(args: Record<string, unknown>) { return { content: JSON.stringify(args) }; }

  @Tool({ name: "secret_tool", description: "hidden", visibility: "hidden" })
  secret() { return "hidden"; }

  @Tool({ name: "core", description: "a core tool", coreTool: true, chatScope: "group", allowedSessions: ["g1", "qq:g7"] })
  core() { return "core"; }

  @Tool({ name: "env_probe", description: "what the plugin can see" })
  envProbe() { return { content: "ok", structuredContent: { processKeys: Object.keys(process.env), granted: this.ctx.env } }; }
}
`;

const BETA = `
export default class Beta extends Plugin {
  @Tool({ name: "shared", description: "beta's" })
  shared() { return "from beta"; }

  @Tool({ name: "beta_only", description: "only beta has it" })
  only() { return "beta"; }

  @Tool({ name: "beta_env", description: "what beta can see" })
  env() { return { content: "ok", structuredContent: this.ctx.env }; }
}
`;

describe("a real plugin Runner", () => {
  const folder = new PluginFolder()
    .add("alpha", { source: ALPHA })
    .add("bad-decl", {
      source: `export default class Bad { @Tool({ name: "has space", description: "x" }) run() { return 1; } }`,
    })
    .add("bad-manifest", { source: "", rawManifest: "{ not json" })
    .add("beta", { source: BETA })
    .add("broken", { source: `throw new Error("boom while loading");\nexport default class Broken {}` });
  let rt: StartedRuntime;
  const generation = () => rt.runtime.supervisor.snapshot().generation;

  beforeAll(async () => {
    rt = await startRuntime({
      dirs: [folder.root],
      plugins: { toolTimeoutMs: 1_500, env: { alpha: ["OPENAI_API_KEY", "MAISAKA_ADMIN_TOKEN"] } },
      env: {
        PATH: process.env.PATH,
        MAISAKA_ADMIN_TOKEN: "admin-secret",
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
      },
      timing: { maxFrameBytes: 100_000 },
    });
  });

  afterAll(async () => {
    await rt?.close();
    folder.dispose();
  });

  it("loads the plugins, reports the ones that failed, and lists plugin ToolSpecs", async () => {
    const specs = await rt.runtime.provider.listTools();
    const names = specs.map((s) => s.name);
    expect(names).toEqual([
      "echo",
      "shared",
      "never",
      "exit_now",
      "spin",
      "returns",
      "legacy_greet",
      "secret_tool",
      "core",
      "env_probe",
      "beta_only",
      "beta_env",
    ]);
    const echo = specs.find((s) => s.name === "echo");
    expect(echo).toMatchObject({
      providerName: "alpha",
      providerType: "plugin",
      enabled: true,
      parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      metadata: { pluginId: "alpha", invokeMethod: "plugin.invoke_tool", chatScope: "all" },
    });
    // Hidden means disabled; coreTool makes a tool visible to the planner; the rest are deferred.
    expect(specs.find((s) => s.name === "secret_tool")?.enabled).toBe(false);
    expect(plannerPlacement(specs.find((s) => s.name === "core")!)).toBe("visible");
    expect(plannerPlacement(echo!)).toBe("deferred");

    const statuses = rt.runtime.statuses();
    const byName = new Map(statuses.map((s) => [s.name, s]));
    expect(byName.get("plugin_runtime")).toMatchObject({
      type: "plugin",
      state: "ready",
      toolCount: 12,
      lastError: null,
    });
    expect(byName.get("alpha")).toMatchObject({ state: "ready", toolCount: 10 });
    expect(byName.get("broken")).toMatchObject({ state: "failed", toolCount: 0 });
    expect(byName.get("broken")?.lastError).toContain("boom while loading");
    expect(byName.get("bad-manifest")?.lastError).toContain("plugin.json is not valid JSON");
    expect(byName.get("bad-decl")?.lastError).toMatch(/invalid declaration of tool "has space": name/);
  });

  it("a tool name taken by an earlier plugin is skipped with a warning: the first wins", async () => {
    expect((await rt.invoke("shared")).content).toBe("from alpha");
    expect((await rt.invoke("beta_only")).content).toBe("beta");
    expect(rt.logs.join("\n")).toContain(
      'Duplicate plugin tool "shared" from plugin "beta" skipped: the name is already provided by plugin "alpha"',
    );
    const beta = rt.runtime.plugins().find((p) => p.id === "beta");
    expect(beta?.tools).toEqual(["beta_only", "beta_env"]);
    expect(beta?.warnings.join()).toContain('"shared"');
    // The unified registry sees one "shared", from alpha.
    const registry = new ToolRegistry({ logger: { warn: () => undefined } });
    registry.registerProvider(rt.runtime.provider);
    expect((await registry.listTools()).filter((s) => s.name === "shared").map((s) => s.providerName)).toEqual([
      "alpha",
    ]);
  });

  it("filters by chatScope and allowedSessions from the availability context", async () => {
    const listed = async (ctx: { isGroupChat?: boolean; groupId?: string; platform?: string; sessionId?: string }) =>
      (await rt.runtime.provider.listTools({ sessionId: "s1", streamId: "s1", ...ctx })).some((s) => s.name === "core");
    expect(await listed({ isGroupChat: true, groupId: "g1" })).toBe(true);
    expect(await listed({ isGroupChat: true, groupId: "g7", platform: "qq" })).toBe(true);
    expect(await listed({ isGroupChat: true, groupId: "g2" })).toBe(false);
    expect(await listed({ isGroupChat: false, sessionId: "g1" })).toBe(false);
    // Not invocable where it is not offered.
    const refused = await rt.runtime.provider.invoke(
      { toolName: "core", arguments: {}, callId: "c", sessionId: "s1", streamId: "s1", reasoning: "", metadata: {} },
      { sessionId: "s1", streamId: "s1", isGroupChat: true, groupId: "g2", reasoning: "", metadata: {} },
    );
    expect(refused).toMatchObject({ success: false, errorMessage: "未找到插件工具：core" });
    expect((await rt.invoke("secret_tool")).success).toBe(false);
  });

  it("converts a legacy @Action into a tool that also receives reasoning and actionData", async () => {
    const spec = (await rt.runtime.provider.listTools()).find((s) => s.name === "legacy_greet");
    expect(spec).toMatchObject({
      providerName: "alpha",
      parametersSchema: {
        type: "object",
        properties: {
          target: { type: "string", description: "who to greet" },
          mood: { type: "string", description: "how" },
        },
        required: ["target", "mood"],
      },
      metadata: { legacyComponentType: "action", invokeMethod: "plugin.invoke_action" },
    });
    expect(spec?.description).toContain("when someone says hi");
    const result = await rt.invoke(
      "legacy_greet",
      { target: "Bob", mood: "warm" },
      { reasoning: "Bob said hi, greet back" },
    );
    expect(result).toMatchObject({ success: true, metadata: { pluginId: "alpha", legacyComponentType: "action" } });
    expect(JSON.parse(result.content)).toEqual({
      target: "Bob",
      mood: "warm",
      reasoning: "Bob said hi, greet back",
      actionData: { target: "Bob", mood: "warm" },
    });
  });

  it("passes the call context and normalises return values; bad ones become failures, never a crash", async () => {
    const echo = await rt.invoke("echo", { text: "hi" }, { callId: "call-xyz" });
    expect(echo).toMatchObject({
      success: true,
      content: "echo: hi",
      structuredContent: { sessionId: "s1", callId: "call-xyz" },
    });

    const r = async (kind: string) => rt.invoke("returns", { kind });
    expect(await r("pair_ok")).toMatchObject({ success: true, content: "done", errorMessage: "" });
    expect(await r("pair_fail")).toMatchObject({ success: false, content: "", errorMessage: "nope" });
    expect(await r("object_error")).toMatchObject({ success: false, errorMessage: "bad input" });
    expect(await r("object_message")).toMatchObject({
      success: true,
      content: "hello",
      structuredContent: { message: "hello" },
    });
    expect(await r("object_plain")).toMatchObject({
      success: true,
      content: '{"celsius":21}',
      structuredContent: { celsius: 21 },
    });
    expect(await r("object_failed")).toMatchObject({ success: false, content: "", errorMessage: "could not" });
    expect(await r("circular")).toMatchObject({ success: true, content: expect.stringContaining("[Circular *1]") });
    expect(await r("bigint")).toMatchObject({ success: true, content: '{"big":"10"}' });
    expect(await r("function")).toMatchObject({ success: true, content: "" });
    expect(await r("undefined")).toMatchObject({ success: true, content: "" });
    expect(await r("number")).toMatchObject({ success: true, content: "42" });
    // A non-boolean success is ignored (default true); non-text content is shown as JSON.
    expect(await r("weird")).toMatchObject({ success: true, content: '{"nested":[1,2]}' });
    expect(await r("object_failed_silently")).toMatchObject({ success: false, errorMessage: "插件工具报告失败" });
    const items = await r("items");
    expect(items.contentItems).toEqual([expect.objectContaining({ contentType: "text", text: "item text" })]);
    // The plugin may ask to pause the loop; it cannot forge the Host's own metadata.
    expect((await r("pause")).metadata).toEqual({ pauseExecution: true, pluginId: "alpha" });

    const huge = await r("huge");
    expect(huge).toMatchObject({ success: false, metadata: { errorCode: "E_FRAME_TOO_LARGE" } });
    const thrown = await r("throw");
    expect(thrown).toMatchObject({ success: false, metadata: { errorCode: "E_HANDLER_FAILED" } });
    expect(thrown.errorMessage).toBe("工具 returns 调用失败：[E_HANDLER_FAILED] TypeError: plugin bug");
    expect((await r("reject")).errorMessage).toContain("RangeError: async plugin bug");

    expect(generation()).toBe(1);
    expect((await rt.invoke("echo", { text: "still here" })).content).toBe("echo: still here");
  });

  it("a call that never resolves fails with E_TIMEOUT and the Runner keeps serving", async () => {
    const result = await rt.invoke("never");
    expect(result).toMatchObject({ success: false, metadata: { errorCode: "E_TIMEOUT" } });
    // The Runner's own 1.5 s timeout, not the test's.
    expect(result.errorMessage).toContain("timed out after 1500 ms");
    expect(generation()).toBe(1);
    expect((await rt.invoke("echo", { text: "after timeout" })).success).toBe(true);
  });

  it("the Runner gets no operator token and no model keys; a plugin sees only what config grants it", async () => {
    const alpha = (await rt.invoke("env_probe")).structuredContent as {
      processKeys: string[];
      granted: Record<string, string>;
    };
    expect(alpha.processKeys).toContain("PATH");
    for (const secret of ["MAISAKA_ADMIN_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MAISAKA_IPC_TOKEN"])
      expect(alpha.processKeys).not.toContain(secret);
    // The admin token is refused even when config grants it.
    expect(alpha.granted).toEqual({ OPENAI_API_KEY: "sk-test" });
    expect(rt.logs.join("\n")).toContain("MAISAKA_ADMIN_TOKEN is never granted to plugins");
    expect((await rt.invoke("beta_env")).structuredContent).toEqual({});
  });

  it("refuses a connection with a wrong handshake token (and a Runner started with one exits)", async () => {
    const address = rt.runtime.supervisor.ipcAddress!;
    const hello = async (token: string, sdkVersion = SDK_VERSION) => {
      const socket = connect(address);
      await once(socket, "connect");
      const connection = new IpcConnection(socket, {
        maxFrameBytes: 100_000,
        lost: { code: "E_RUNNER_UNAVAILABLE", message: "closed" },
      });
      const outcome = await connection
        .request("runner.hello", { runnerId: "rogue", sdkVersion, token }, { timeoutMs: 2_000 })
        .catch((e: unknown) => e);
      await until(() => connection.closed, "the refused connection to close", { timeoutMs: 2_000 });
      return outcome;
    };
    expect(await hello("not-the-secret")).toMatchObject({ code: "E_UNAUTHORIZED" });
    expect(await hello("not-the-secret", "2.0.0")).toMatchObject({ code: "E_PROTOCOL_MISMATCH" });
    expect(rt.logs.join("\n")).toContain("refused a connection: E_UNAUTHORIZED wrong session token");

    const rogue = spawn(process.execPath, ["--import", "tsx", RUNNER_MAIN], {
      cwd: PROJECT_ROOT,
      env: {
        NODE_ENV: "test",
        PATH: process.env.PATH,
        MAISAKA_IPC_ADDRESS: address,
        MAISAKA_IPC_TOKEN: "guessed",
        MAISAKA_RUNNER_ID: "rogue",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    rogue.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(rogue, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain("wrong session token");

    expect(generation()).toBe(1);
    expect((await rt.invoke("echo", { text: "unbothered" })).content).toBe("echo: unbothered");
  });

  it("a tool that calls process.exit: its call and the calls in flight fail with E_PLUGIN_CRASHED, the Runner restarts", async () => {
    const inFlight = rt.invoke("never");
    await new Promise((r) => setTimeout(r, 50));
    const crashed = await rt.invoke("exit_now");
    expect(crashed).toMatchObject({ success: false, metadata: { errorCode: "E_PLUGIN_CRASHED" } });
    expect(await inFlight).toMatchObject({ success: false, metadata: { errorCode: "E_PLUGIN_CRASHED" } });
    // Gone while down, back after the restart.
    await until(() => rt.runtime.supervisor.snapshot().phase === "ready" && generation() === 2, "the restart", {
      timeoutMs: 15_000,
    });
    expect((await rt.invoke("echo", { text: "after crash" })).content).toBe("echo: after crash");
    expect((await rt.invoke("shared")).content).toBe("from alpha");
    const runner = rt.runtime.statuses().find((s) => s.name === "plugin_runtime");
    expect(runner).toMatchObject({ state: "ready", detail: expect.objectContaining({ restarts: 1, generation: 2 }) });
    expect(runner?.lastError).toContain("exited (code 3)");
  });

  it("a hung Runner fails its health check and is restarted", async () => {
    const hung = await rt.invoke("spin");
    expect(hung.success).toBe(false);
    expect(["E_PLUGIN_CRASHED", "E_TIMEOUT"]).toContain(hung.metadata.errorCode);
    await until(
      () => rt.runtime.supervisor.snapshot().phase === "ready" && generation() === 3,
      "the restart after the hang",
      { timeoutMs: 15_000 },
    );
    expect(rt.runtime.supervisor.snapshot().lastError).toContain("health check");
    expect((await rt.invoke("echo", { text: "after hang" })).content).toBe("echo: after hang");
  });
});

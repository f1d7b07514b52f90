// The plugin Runner killed (SIGKILL) during a plugin tool call, then hung (SIGSTOP): each call fails as
// a tool.execution event naming the error code, the session's turn goes on, another session is served
// while the Runner is gone or stuck, the supervisor brings a new Runner up (after the crash at once,
// after the hang once its health check gives up: about 8 s with the default timing) and plugin tools
// work again. Nothing acknowledged is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { until } from "../support/until";
import { PluginFolder } from "../plugins/support";
import { startFaultRig, type FaultRig } from "./support";

const PLUGIN = `
export default class Faults extends Plugin {
  @Tool({ name: "echo_back", description: "echoes the text", coreTool: true, parameters: [{ name: "text", type: "string", required: true }] })
  echo(args: { text: string }) { return "echo: " + args.text; }

  @Tool({ name: "wait_forever", description: "never answers", coreTool: true })
  never() { return new Promise(() => {}); }
}
`;

const folder = new PluginFolder().add("faults", { source: PLUGIN });
let rig: FaultRig;

beforeAll(async () => {
  rig = await startFaultRig({ plugins: true, config: { plugins: { dirs: [folder.root], toolTimeoutMs: 1_500 } } });
  for (const id of ["plugin-user", "steady"]) await rig.server.createSession({ id, name: id });
}, 60_000);

afterAll(async () => {
  await rig?.close();
  folder.dispose();
});

const runner = () => rig.server.app.engine.plugins.supervisor.snapshot();

const execution = async (callId: string) =>
  (await rig.ledger("plugin-user")).find(
    (e): e is Extract<MonitorEvent, { type: "tool.execution" }> =>
      e.type === "tool.execution" && e.data.toolCallId === callId,
  );

const callPlugin = (id: string, name: string, args: Record<string, unknown> = {}) =>
  rig.script("plugin-user", "planner", {
    kind: "response",
    content: `调用 ${name}`,
    toolCalls: [{ id, name, arguments: args }],
  });

/** A turn of the steady session, start to finish. */
async function steadyTurn(): Promise<void> {
  const done = rig.endsOf("steady").filter((r) => r === "finish").length;
  await rig.say("steady");
  await rig.waitForEnds("steady", "finish", done + 1);
}

async function echoWorks(n: number): Promise<void> {
  callPlugin(`echo-${n}`, "echo_back", { text: `第 ${n} 次` });
  await rig.say("plugin-user");
  await rig.waitForEnds("plugin-user", "finish", n);
  expect((await execution(`echo-${n}`))?.data).toMatchObject({
    success: true,
    providerName: "faults",
    result: `echo: 第 ${n} 次`,
  });
}

describe("plugin Runner faults", () => {
  it("killed mid-call: the call fails with E_PLUGIN_CRASHED, the Runner comes back, plugin tools work", async () => {
    await until(() => runner().phase === "ready", "the Runner to be ready", { timeoutMs: 30_000 });
    const first = runner();
    callPlugin("never-1", "wait_forever");
    await rig.say("plugin-user");
    await until(
      () => rig.server.app.engine.manager.get("plugin-user")?.stage.detail.includes("wait_forever") ?? false,
      "the plugin call to start",
    );
    await steadyTurn();

    process.kill(first.pid ?? 0, "SIGKILL");
    await rig.waitForEnds("plugin-user", "finish");
    const failed = await execution("never-1");
    expect(failed?.data).toMatchObject({ toolName: "wait_forever", success: false });
    expect(failed?.data.result).toMatch(/E_PLUGIN_CRASHED/);
    await steadyTurn();

    await until(() => runner().phase === "ready" && runner().generation > first.generation, "a new Runner", {
      timeoutMs: 30_000,
    });
    await echoWorks(2);
  }, 60_000);

  it("hung (SIGSTOP): the call times out with E_TIMEOUT, the health check replaces the Runner, plugin tools work", async () => {
    const hung = runner();
    process.kill(hung.pid ?? 0, "SIGSTOP");
    try {
      callPlugin("echo-stuck", "echo_back", { text: "有人吗" });
      await rig.say("plugin-user");
      await steadyTurn();
      await rig.waitForEnds("plugin-user", "finish", 3);
      const stuck = await execution("echo-stuck");
      expect(stuck?.data).toMatchObject({ toolName: "echo_back", success: false });
      expect(stuck?.data.result).toMatch(/E_TIMEOUT/);
      await steadyTurn();

      await until(
        () => runner().phase === "ready" && runner().generation > hung.generation,
        "the hung Runner to be replaced",
        { timeoutMs: 30_000 },
      );
      expect(runner().lastError).toMatch(/health check/);
    } finally {
      // Harmless when the supervisor already killed it; lets it die otherwise.
      if (runner().pid === hung.pid) process.kill(hung.pid ?? 0, "SIGCONT");
    }
    await echoWorks(4);
    await rig.expectIntact("plugin-user", "steady");
  }, 60_000);
});

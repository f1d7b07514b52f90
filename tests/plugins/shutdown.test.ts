// The Runner as a confined child: its own process group (a terminal's Ctrl+C does not reach it),
// another user when the server is root, and never restarted once shutdown began.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, PluginFolder, startRuntime, type StartedRuntime } from "./support";

const folder = new PluginFolder().add("plain", {
  source: `export default class Plain extends Plugin {
  @Tool({ name: "plain", description: "a plain tool" })
  plain() { return "plain"; }
}`,
});
let rt: StartedRuntime;

beforeAll(async () => {
  rt = await startRuntime({ dirs: [folder.root] });
});

afterAll(async () => {
  await rt?.close();
  folder.dispose();
});

function statField(pid: number, index: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[index]);
}

describe("the Runner process", () => {
  it("runs in its own process group, as another user when the server is root", () => {
    const pid = rt.runtime.supervisor.snapshot().pid ?? 0;
    expect(statField(pid, 2)).not.toBe(statField(process.pid, 2));
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    expect(uid).toBe(process.getuid?.() === 0 ? 65534 : process.getuid?.());
  });

  it("once shutdown began, a Runner that dies stays down", async () => {
    const supervisor = rt.runtime.supervisor;
    expect(supervisor.snapshot()).toMatchObject({ phase: "ready", generation: 1 });
    rt.runtime.beginShutdown();
    process.kill(supervisor.snapshot().pid ?? 0, "SIGKILL");
    await eventually(() => supervisor.snapshot().phase !== "ready", 5_000, "the Runner's death to be seen");
    // Several times the longest backoff (FAST_TIMING): a restart would have happened by now.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(supervisor.snapshot()).toMatchObject({ generation: 1, restarts: 0, pid: null });
    expect(rt.logs.join("\n")).not.toContain("restarting the plugin runner");
  });
});

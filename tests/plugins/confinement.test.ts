// The Runner as a confined child: compiled by the Host, reading only its plugin folders (and
// node_modules), writing only its private home, its own process group (a terminal's Ctrl+C does not
// reach it), another user when the server is root, and never restarted once shutdown began.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/until";
import { PluginFolder, startRuntime, type StartedRuntime } from "./support";

const folder = new PluginFolder()
  .add("files", {
    source: `import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const attempt = (run: () => string) => { try { return run(); } catch (e) { return (e as { code?: string }).code ?? String(e); } };
export default class Files extends Plugin {
  @Tool({ name: "read_own", description: "reads its asset" })
  readOwn() { return attempt(() => readFileSync(join(this.ctx.pluginDir, "asset.txt"), "utf8")); }
  @Tool({ name: "read_other", description: "reads outside its folder" })
  readOther() { return attempt(() => readFileSync("/etc/hostname", "utf8")); }
  @Tool({ name: "write_home", description: "writes its home" })
  writeHome() { return attempt(() => { writeFileSync(join(process.env.HOME ?? "", "note"), "kept"); return readFileSync(join(process.env.HOME ?? "", "note"), "utf8"); }); }
  @Tool({ name: "write_cwd", description: "writes outside its home" })
  writeOwn() { return attempt(() => { writeFileSync(join(this.ctx.pluginDir, "x"), "x"); return "written"; }); }
}`,
  })
  .add("syntax", { source: "export default class Broken extends Plugin { oops( }" });
let rt: StartedRuntime;

beforeAll(async () => {
  writeFileSync(join(folder.root, "files", "asset.txt"), "my asset");
  // Readable by the Runner's user (its own when the tests run as root), as an operator's plugins are.
  for (const path of [folder.root, join(folder.root, "files")]) chmodSync(path, 0o755);
  chmodSync(join(folder.root, "files", "asset.txt"), 0o644);
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
  it("reads its own folder and writes its home, nothing else; a plugin that does not compile is reported", async () => {
    expect((await rt.invoke("read_own")).content).toBe("my asset");
    expect((await rt.invoke("read_other")).content).toBe("ERR_ACCESS_DENIED");
    expect((await rt.invoke("write_home")).content).toBe("kept");
    expect((await rt.invoke("write_cwd")).content).toBe("ERR_ACCESS_DENIED");
    const syntax = rt.runtime.plugins().find((p) => p.id === "syntax");
    expect(syntax).toMatchObject({ state: "failed" });
    expect(syntax?.error).toMatch(/compiling index\.ts failed: .*index\.ts:\d+: /);
  });

  it("runs in its own process group, as another user when the server is root", () => {
    const pid = rt.runtime.supervisor.snapshot().pid ?? 0;
    expect(statField(pid, 2)).not.toBe(statField(process.pid, 2));
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    if (process.getuid?.() !== 0) return expect(uid).toBe(process.getuid?.());
    // A user of its own from MAISAKA_CHILD_UIDS (default 61000-61183), held by this Runner alone.
    expect(uid).toBeGreaterThanOrEqual(61_000);
    expect(uid).toBeLessThanOrEqual(61_183);
  });

  it("once shutdown began, a Runner that dies stays down", async () => {
    const supervisor = rt.runtime.supervisor;
    expect(supervisor.snapshot()).toMatchObject({ phase: "ready", generation: 1 });
    rt.runtime.beginShutdown();
    process.kill(supervisor.snapshot().pid ?? 0, "SIGKILL");
    await until(() => supervisor.snapshot().phase !== "ready", "the Runner's death to be seen", { timeoutMs: 5_000 });
    // Several times the longest backoff (FAST_TIMING): a restart would have happened by now.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(supervisor.snapshot()).toMatchObject({ generation: 1, restarts: 0, pid: null });
    expect(rt.logs.join("\n")).not.toContain("restarting the plugin runner");
  });
});

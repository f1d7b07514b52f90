// The real `rerun` command (docs/interface.md#commands), spawned as a child process against a database a real server
// recorded into: exit 0 when the session reproduces, 1 with the divergence as JSON on stdout when a
// config file's prompt changes the gate's input; the batch form prints a line per session and a summary.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { divergenceSchema } from "../../lib/rerun/schemas";
import { runCli } from "../support/cli";
import { delay, FAST_CHAT, startTestServer, tempDatabaseUrl } from "../server/support";

/** The server's and the CLI's config: the same plugins (none), so only what a test changes differs. */
const CONFIG = { ...FAST_CHAT, plugins: { dirs: [] } };

let dir: string;
let databaseUrl: string;
const sessions: string[] = [];

function env(config: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, MAISAKA_CONFIG: config, NO_COLOR: "1" };
  for (const key of Object.keys(out)) if (key.startsWith("OPENAI_") || key === "MAISAKA_MODEL") delete out[key];
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "maisaka-rerun-cli-"));
  writeFileSync(join(dir, "same.json"), JSON.stringify(CONFIG));
  writeFileSync(
    join(dir, "quiet.json"),
    JSON.stringify({ ...CONFIG, prompts: { maisaka_timing_gate: "Never speak: call no_action." } }),
  );
  databaseUrl = await tempDatabaseUrl();
  const server = await startTestServer({ databaseUrl, config: CONFIG });
  for (const name of ["a", "b"]) {
    const id = await server.createSession({ name });
    for (const text of ["大家好", "今天吃什么", "@麦麦 你呢"]) {
      await server.say(id, text, { atBot: text.startsWith("@") });
      await delay(150);
    }
    await server.waitForEvent(id, (e) => e.type === "message.sent", 20_000);
    sessions.push(id);
  }
  await delay(1_000);
  await server.close();
}, 90_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("maisaka rerun", () => {
  it("exits 0 with nothing on stdout when the session reproduces", async () => {
    const run = await runCli(["rerun", "--session", sessions[0]], env(join(dir, "same.json")));
    expect(run.stderr).toContain("reproduced");
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "" });
  });

  it("exits 1 with the divergence as JSON when the config's prompt changes what the gate sees", async () => {
    const run = await runCli(["rerun", "--session", sessions[0]], env(join(dir, "quiet.json")));
    expect(run.code, run.stderr).toBe(1);
    const divergence = divergenceSchema.parse(JSON.parse(run.stdout));
    expect(divergence).toMatchObject({ kind: "request", task: "timingGate" });
  });

  it("over several sessions prints one line each and a summary, exit 1 when any diverged", async () => {
    const run = await runCli(
      ["rerun", "--session", sessions[0], "--session", sessions[1], "--session", "missing"],
      env(join(dir, "same.json")),
    );
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(0, 2).map((l) => [l.session, l.divergence])).toEqual([
      [sessions[0], null],
      [sessions[1], null],
    ]);
    expect(lines[2]).toMatchObject({ session: "missing", error: expect.stringContaining("no session") });
    expect(lines[3]).toEqual({ summary: { sessions: 3, reproduced: 2, diverged: 0, failed: 1 } });
    expect(run.code).toBe(1);
  });

  it("refuses bad arguments with exit 2", async () => {
    const run = await runCli(["rerun"], env(join(dir, "same.json")));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--session");
  });
});

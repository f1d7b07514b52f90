// The real `simulate` command (interface.md), spawned as a child process: stdout is nothing but
// monitor event envelopes, one JSON line each, and failures exit non-zero with a stderr message.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { parseScript, scriptMessage } from "../../lib/simulate/script";
import { createEngine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { createSimulatedModelClient } from "../../server/llm/simulated";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import { runCli, type CliResult } from "../support/cli";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

let dir: string;
let cleanConfig: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "maisaka-simulate-"));
  // The defaults, whatever maisaka.config.json the working tree may hold.
  cleanConfig = join(dir, "maisaka.config.json");
  writeFileSync(cleanConfig, "{}");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MAISAKA_CONFIG: cleanConfig, NO_COLOR: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("OPENAI_") || key === "MAISAKA_MODEL") delete env[key];
  return { ...env, ...extra };
}

function simulate(args: string[], env = cleanEnv()): Promise<CliResult> {
  return runCli(["simulate", ...args], env);
}

/** Every stdout line must be a valid envelope; returns them in order. */
function parseEnvelopes(stdout: string): MonitorEvent[] {
  const lines = stdout.split("\n");
  expect(lines.at(-1)).toBe(""); // ends with a newline, nothing after it
  return lines.slice(0, -1).map((line, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
    }
    const parsed = monitorEventSchema.safeParse(raw);
    if (!parsed.success) {
      throw new Error(`stdout line ${i + 1} is not a valid envelope: ${parsed.error.message}\n${line.slice(0, 300)}`);
    }
    return parsed.data;
  });
}

function expectGapless(events: MonitorEvent[]) {
  expect(events.length).toBeGreaterThan(0);
  const sessionIds = new Set(events.map((e) => e.sessionId));
  expect(sessionIds.size).toBe(1);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
}

function ofType<T extends MonitorEvent["type"]>(events: MonitorEvent[], type: T) {
  return events.filter((e) => e.type === type) as Extract<MonitorEvent, { type: T }>[];
}

/** After the last cycle.end nothing starts again: the session ended idle. */
function expectEndedIdle(events: MonitorEvent[]) {
  const lastEnd = events.map((e) => e.type).lastIndexOf("cycle.end");
  expect(lastEnd).toBeGreaterThan(-1);
  expect(events.slice(lastEnd + 1).filter((e) => e.type === "cycle.start")).toHaveLength(0);
  expect(events.at(-1)?.type).toBe("session.stop");
  expect(ofType(events, "cycle.start")).toHaveLength(ofType(events, "cycle.end").length);
}

describe("maisaka simulate", () => {
  it("group-chat.jsonl: exit 0, only envelope lines, gapless seq, every line ingested, the @ answered", async () => {
    const scriptPath = "examples/group-chat.jsonl";
    const script = parseScript(readFileSync(join(repoRoot, scriptPath), "utf8"));
    const result = await simulate(["--script", scriptPath, "--speed", "0", "--session", "cli-test"]);
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(0);
    const events = parseEnvelopes(result.stdout);
    expectGapless(events);
    expect(events[0].sessionId).toBe("cli-test");
    expect(events[0].type).toBe("session.start");
    expect(result.stderr).toMatch(/SIMULATED/);

    const ingested = ofType(events, "message.ingested");
    expect(ingested.map((e) => e.data.content).sort()).toEqual(script.map((l) => l.text).sort());
    expect(new Set(ingested.map((e) => e.data.messageId)).size).toBe(script.length);

    expect(ofType(events, "timing_gate.result").length).toBeGreaterThanOrEqual(1);
    const at = ingested.find((e) => e.data.content.includes("@麦麦"));
    if (!at) throw new Error("the @ message was not ingested");
    expect(at.data.atBot).toBe(true);

    // The @ forces the turn that ingested it: its gate is forced to continue without the model,
    // and that turn sends a reply quoting a message of the @'s batch. (With --speed 0 the later
    // "哈哈麦麦肯定在看书" lands in the same batch, and the simulated planner answers the newest line.)
    const atIndex = events.indexOf(at);
    const batchStart =
      events
        .slice(0, atIndex)
        .map((e) => e.type)
        .lastIndexOf("cycle.end") + 1;
    const turnStart = events.findIndex((e, i) => i > atIndex && e.type === "cycle.start");
    expect(turnStart).toBeGreaterThan(atIndex);
    const batchIds = events
      .slice(batchStart, turnStart)
      .flatMap((e) => (e.type === "message.ingested" ? [e.data.messageId] : []));
    expect(batchIds).toContain(at.data.messageId);
    const turnEnd = events.findIndex(
      (e, i) =>
        i > turnStart &&
        e.type === "cycle.end" &&
        e.data.endReason !== "tool_continue" &&
        e.data.endReason !== "continue",
    );
    const turn = events.slice(turnStart, turnEnd + 1);
    const gate = ofType(turn, "timing_gate.result")[0];
    expect(gate.data).toMatchObject({ action: "continue", forced: true });
    const sent = ofType(turn, "message.sent");
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(batchIds).toContain(sent[0].data.replyTo);
    expect(sent[0].data.content.trim().length).toBeGreaterThan(0);
    expect(ofType(turn, "tool.execution").map((e) => e.data.toolName)).toContain("reply");
    expectEndedIdle(events);
  }, 90_000);

  it("private-wait.jsonl --private ends idle even with a wait armed", async () => {
    const result = await simulate(["--script", "examples/private-wait.jsonl", "--private", "--speed", "0"]);
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(0);
    const events = parseEnvelopes(result.stdout);
    expectGapless(events);
    const start = ofType(events, "session.start")[0];
    expect(start.data).toMatchObject({ isGroupChat: false, userId: "u9" });
    expect(
      ofType(events, "message.ingested")
        .map((e) => e.data.content)
        .sort(),
    ).toEqual(["在吗", "我想跟你说件事…"].sort());
    // An armed wait counts as idle: the command ends without sitting out the 30 s timer, whose turn
    // would have added a cycle after the wait. (With --speed 0 the first turn may take "在吗" alone
    // and answer it before the unfinished sentence arrives; either way the last cycle is the wait.)
    const ends = ofType(events, "cycle.end").map((e) => e.data.endReason);
    expect(ends.at(-1)).toBe("timing_wait");
    expect(ends.filter((r) => r === "timing_wait")).toHaveLength(1);
    expectEndedIdle(events);
  }, 90_000);

  it("a bad script line exits non-zero naming the line number, with nothing on stdout", async () => {
    const path = join(dir, "bad-fields.jsonl");
    writeFileSync(
      path,
      [
        JSON.stringify({ at: 0, userId: "u1", userName: "Alice", text: "hi" }),
        "",
        JSON.stringify({ at: 5, userId: "u1", text: "no name" }),
      ].join("\n"),
    );
    const result = await simulate(["--script", path, "--speed", "0"]);
    expect(result.timedOut).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toContain(`${path}:3:`);
    expect(result.stderr).toContain("userName");
    expect(result.stdout).toBe("");
  }, 90_000);

  it("a line that is not JSON exits non-zero naming its line number", async () => {
    const path = join(dir, "bad-json.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify({ at: 0, userId: "u1", userName: "A", text: "ok" })}\n{"at": 1, "userId": oops}\n`,
    );
    const result = await simulate(["--script", path, "--speed", "0"]);
    expect(result.timedOut).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${path}:2:`);
    expect(result.stderr).toMatch(/JSON/);
    expect(result.stdout).toBe("");
  }, 90_000);

  it("an unreachable OPENAI_BASE_URL exits non-zero saying so", async () => {
    const port = await closedPort();
    const result = await simulate(
      ["--script", "examples/group-chat.jsonl", "--speed", "0"],
      cleanEnv({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: "k" }),
    );
    expect(result.timedOut).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toMatch(/unreachable/);
    expect(result.stdout).toBe("");
  }, 90_000);
});

describe("a demo chat on the SIMULATED model", () => {
  it("examples/slang-chat.jsonl: plain-word replies, and the stores gain jargon, memories and persons", async () => {
    const script = parseScript(readFileSync(join(repoRoot, "examples/slang-chat.jsonl"), "utf8"));
    const stores = createMemoryStores();
    // A small window, so the demo's lines are trimmed out of it and go through learning.
    const config = parseConfig(
      { chat: { maxContextSize: 2, messageDebounceSeconds: 0, timingGateCooldownSeconds: 0 } },
      "test",
    );
    const engine = await createEngine({
      config,
      stores,
      ledger: new MemoryLedger(),
      model: createSimulatedModelClient(),
    });
    const events: MonitorEvent[] = [];
    engine.bus.subscribe((e) => void events.push(e));
    const now = Date.now();
    const runtime = await engine.manager.getOrCreate({
      id: "demo",
      name: "slang-chat.jsonl",
      isGroupChat: true,
      platform: "simulate",
      groupId: "sim-group",
      userId: null,
      createdAt: now,
      lastActiveAt: now,
    });
    try {
      for (const [i, line] of script.entries()) {
        await runtime.registerMessage(scriptMessage(line, i, "demo", Date.now()));
      }
      await pollUntil(async () => runtime.isIdle() && (await stores.jargon.findExact("yyds", 5)).length > 0);
      await pollUntil(async () => (await stores.memories.search({ mode: "time", limit: 20 })).length > 0);

      const yyds = (await stores.jargon.findExact("yyds", 5))[0];
      expect(yyds.meaning).toMatch(/永远的神/);
      const memories = (await stores.memories.search({ mode: "time", limit: 20 })).map((m) => m.content);
      expect(memories.some((m) => m.includes("爬山") || m.includes("出差"))).toBe(true);
      expect(await stores.persons.find("Bob")).not.toBeNull();

      // The @ was looked up as the bare word, and every reply is plain words.
      const lookups = events.flatMap((e) =>
        e.type === "tool.execution" && e.data.toolName === "query_jargon" ? [e.data.args] : [],
      );
      expect(lookups).toContainEqual({ words: ["yyds"] });
      const sent = events.flatMap((e) => (e.type === "message.sent" ? [e.data.content] : []));
      expect(sent.length).toBeGreaterThan(0);
      for (const text of sent) expect(text).not.toMatch(/[{}]|"results"|matches/);
      expect(sent.some((t) => t.includes("yyds"))).toBe(true);
    } finally {
      await engine.close("test finished");
    }
  }, 60_000);
});

async function pollUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

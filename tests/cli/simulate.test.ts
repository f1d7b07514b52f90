// The real `simulate` command (docs/interface.md#commands), spawned as a child process: stdout is nothing but
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
import { startTestServer, TEST_TOKEN } from "../server/support";
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

describe("maisaka simulate --server", () => {
  it("sends a script's messages to a running server, waiting out its per-session limit; its events on stdout", async () => {
    const server = await startTestServer();
    try {
      // The session's intake used up first (its burst of 20): the script's messages meet 429 and are sent again.
      const sessionId = await server.createSession({ id: "remote-sim", name: "remote.jsonl" });
      let refused = 0;
      for (let i = 0; refused === 0 && i < 100; i++) {
        const res = await server.api("POST", `/api/sessions/${sessionId}/messages`, {
          userId: "u0",
          userName: "User0",
          text: `占位 ${i}`,
          messageId: `pre-${i}`,
        });
        if (res.status === 429) refused++;
        else expect(res.status, res.text).toBe(202);
      }
      expect(refused).toBe(1);
      const lines = Array.from({ length: 26 }, (_, i) =>
        JSON.stringify({
          at: 0,
          userId: `u${i % 3}`,
          userName: `User${i % 3}`,
          text: `远程消息 ${i + 1}`,
          atBot: i === 25,
        }),
      );
      const script = join(dir, "remote.jsonl");
      writeFileSync(script, `${lines.join("\n")}\n`);
      const res = await simulate([
        "--script",
        script,
        "--speed",
        "0",
        "--server",
        server.app.url,
        "--token",
        TEST_TOKEN,
        "--session",
        sessionId,
      ]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain(`session ${sessionId}`);
      const printed = parseEnvelopes(res.stdout);
      expect(printed.length).toBeGreaterThan(0);
      expect(new Set(printed.map((e) => e.sessionId))).toEqual(new Set([sessionId]));
      // Every message arrived, the @ at the end answered, and stdout is the session's ledger.
      const events = await server.events(sessionId);
      const arrived = new Set(
        events.flatMap((e) =>
          e.type === "message.pending" || e.type === "message.ingested" ? [e.data.messageId] : [],
        ),
      );
      const scripted = [...arrived].filter((id) => !id.startsWith("pre-"));
      expect(scripted.sort()).toEqual(Array.from({ length: 26 }, (_, i) => `m${i + 1}`).sort());
      expect(events.some((e) => e.type === "message.sent")).toBe(true);
      expect(printed.map((e) => e.seq)).toEqual(events.slice(0, printed.length).map((e) => e.seq));
      // Without --session the script gets a session of its own, named after it.
      const one = join(dir, "one-line.jsonl");
      writeFileSync(one, `${lines[0]}\n`);
      const own = await simulate(["--script", one, "--speed", "0", "--server", server.app.url, "--token", TEST_TOKEN]);
      expect(own.code, own.stderr).toBe(0);
      const ownId = /session (\S+)/.exec(own.stderr)?.[1] ?? "";
      expect(ownId).not.toBe(sessionId);
      const summary = await server.api("GET", `/api/sessions/${encodeURIComponent(ownId)}`);
      expect(summary.json).toMatchObject({ name: "one-line.jsonl", platform: "simulate" });
    } finally {
      await server.close();
    }
  }, 120_000);

  it("needs a token, and says so when the server refuses it or cannot be reached", async () => {
    const script = join(repoRoot, "examples/group-chat.jsonl");
    const noToken = await simulate(
      ["--script", script, "--server", "http://127.0.0.1:9"],
      cleanEnv({ MAISAKA_TOKEN: "" }),
    );
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("--token");
    const server = await startTestServer();
    try {
      const refused = await simulate(["--script", script, "--server", server.app.url, "--token", "wrong-token"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("401");
      expect(refused.stdout).toBe("");
    } finally {
      await server.close();
    }
    const down = await simulate([
      "--script",
      script,
      "--server",
      `http://127.0.0.1:${await closedPort()}`,
      "--token",
      "t",
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach");
  }, 120_000);
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

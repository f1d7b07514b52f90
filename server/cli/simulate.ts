// `simulate`: runs one chat session headless, feeding a script's messages at their times, and
// prints every monitor event as one JSON line on stdout until the session is idle. With `--server URL`
// (and `--token T`, or MAISAKA_TOKEN) the messages go to that running server instead (simulate-remote.ts).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { parseScript, scriptMessage, ScriptError, type ScriptLine } from "../../lib/simulate/script";
import { createEngine } from "../composition";
import { ConfigError, loadConfig } from "../config/load";
import { MemoryLedger } from "../monitor/ledger";
import { RemoteError, simulateRemote, type RemoteOptions } from "./simulate-remote";
import { createMemoryStores } from "../stores/memory";
import type { SessionRecord } from "../stores/sessions";

const IDLE_POLL_MS = 20;

export async function runSimulate(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        script: { type: "string" },
        session: { type: "string" },
        private: { type: "boolean", default: false },
        speed: { type: "string", default: "1" },
        "follow-waits": { type: "boolean", default: false },
        server: { type: "string" },
        token: { type: "string" },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
  if (!args.script) return fail("simulate needs --script FILE", 2);
  const speed = Number(args.speed);
  if (!Number.isFinite(speed) || speed < 0) return fail(`--speed must be a number >= 0, got ${args.speed}`, 2);

  let lines: ScriptLine[];
  try {
    lines = parseScript(readFileSync(args.script, "utf8"), args.script);
  } catch (error) {
    if (error instanceof ScriptError) return fail(error.message, 2);
    return fail(`cannot read ${args.script}: ${error instanceof Error ? error.message : String(error)}`, 2);
  }
  // A running server has its own config and model.
  if (args.server)
    return remote(args.server, args.token ?? process.env.MAISAKA_TOKEN, lines, {
      name: basename(args.script),
      sessionId: args.session,
      isGroupChat: !args.private,
      speed,
      followWaits: args["follow-waits"],
    });
  let config;
  try {
    config = loadConfig().config;
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message, 2);
    throw error;
  }

  const unreachable = await checkModelEndpoint(process.env);
  if (unreachable) return fail(unreachable, 1);

  const stores = createMemoryStores();
  const engine = await createEngine({ config, stores, ledger: new MemoryLedger() });
  process.stderr.write(`[simulate] model: ${describeModel(engine.model.info())}\n`);
  engine.bus.subscribe((event) => process.stdout.write(`${JSON.stringify(event)}\n`));

  const isGroupChat = !args.private;
  const now = Date.now();
  const session: SessionRecord = {
    id: args.session ?? `sim-${now}`,
    name: basename(args.script),
    isGroupChat,
    platform: "simulate",
    groupId: isGroupChat ? "sim-group" : null,
    userId: isGroupChat ? null : (lines[0]?.userId ?? null),
    createdAt: now,
    lastActiveAt: now,
  };
  const runtime = await engine.manager.getOrCreate(session);

  const started = Date.now();
  for (const [i, line] of lines.entries()) {
    const due = speed === 0 ? 0 : started + line.at / speed - Date.now();
    if (due > 0) await delay(due);
    await runtime.registerMessage(scriptMessage(line, i, session.id, Date.now()));
  }

  // Idle twice in a row, so a turn that is about to be queued by a timer is not missed.
  let idleStreak = 0;
  while (idleStreak < 2) {
    await delay(IDLE_POLL_MS);
    idleStreak = runtime.isIdle({ followWaits: args["follow-waits"] }) ? idleStreak + 1 : 0;
  }
  await engine.close("simulation finished");
  return 0;
}

/** The script sent to a running server; its events on stdout. */
async function remote(
  server: string,
  token: string | undefined,
  lines: readonly ScriptLine[],
  opts: Omit<RemoteOptions, "server" | "token" | "lines">,
): Promise<number> {
  if (!token) return fail("--server needs --token T (or MAISAKA_TOKEN): an operator's API token", 2);
  try {
    await simulateRemote({ server, token, lines, ...opts });
    return 0;
  } catch (error) {
    if (error instanceof RemoteError) return fail(error.message, 1);
    throw error;
  }
}

/** A connection failure means the configured endpoint cannot be used at all; say so up front. */
async function checkModelEndpoint(env: NodeJS.ProcessEnv): Promise<string | null> {
  const base = env.OPENAI_BASE_URL?.trim();
  if (!base) return null;
  try {
    await fetch(new URL("models", base.endsWith("/") ? base : `${base}/`), {
      signal: AbortSignal.timeout(5_000),
      headers: env.OPENAI_API_KEY ? { authorization: `Bearer ${env.OPENAI_API_KEY}` } : {},
    });
    return null;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `model endpoint ${base} is unreachable: ${error instanceof Error ? error.message : String(error)}${cause}`;
  }
}

function describeModel(info: { provider: string; name: string; simulated: boolean }): string {
  return info.simulated
    ? "SIMULATED (offline deterministic model; set OPENAI_BASE_URL to use a real one)"
    : `${info.name} via ${info.provider}`;
}

function fail(message: string, code: number): number {
  process.stderr.write(`maisaka simulate: ${message}\n`);
  return code;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

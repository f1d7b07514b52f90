// `rerun`: re-runs recorded sessions against the current code and a config, for regression checks in
// CI. One session: exit 0 when it reproduces, 1 with the divergence as JSON on stdout. Several
// (--session repeated, or --all): one JSON line per session, then a summary line; exit 1 when any diverged.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { continueWithSchema, rerunRequestSchema, type RerunRequest } from "../../lib/rerun/schemas";
import { createEngine, rerunWorld } from "../composition";
import { ConfigError, loadConfig } from "../config/load";
import { openDatabase } from "../db";
import { stderrLogger } from "../kernel/logger";
import { RerunService } from "../rerun/service";
import { RerunInputError } from "../rerun/errors";

const DAY_MS = 86_400_000;

export async function runRerun(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        session: { type: "string", multiple: true },
        all: { type: "boolean", default: false },
        days: { type: "string" },
        from: { type: "string" },
        config: { type: "string" },
        request: { type: "string" },
        "continue-with": { type: "string" },
        save: { type: "boolean", default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
  const ids = args.session ?? [];
  if (!ids.length && !args.all) return fail("rerun needs --session ID (repeatable) or --all [--days N]", 2);
  if (args.from && ids.length !== 1) return fail("--from CYCLE names a cycle of one session: give one --session", 2);
  const days = args.days === undefined ? null : Number(args.days);
  if (days !== null && !(days > 0)) return fail(`--days must be a number > 0, got ${args.days}`, 2);

  let request: RerunRequest;
  let config;
  try {
    const given: unknown = args.request ? JSON.parse(readFileSync(args.request, "utf8")) : {};
    const parsed = rerunRequestSchema.safeParse(given);
    if (!parsed.success) return fail(`--request ${args.request}: ${parsed.error.issues[0]?.message}`, 2);
    const continueWith =
      args["continue-with"] === undefined ? undefined : continueWithSchema.safeParse(args["continue-with"]);
    if (continueWith && !continueWith.success) return fail("--continue-with is stop, model or simulated", 2);
    request = {
      ...parsed.data,
      ...(args.from ? { fromCycle: args.from } : {}),
      ...(continueWith ? { continueWith: continueWith.data } : {}),
    };
    config = loadConfig(args.config ? { ...process.env, MAISAKA_CONFIG: args.config } : process.env).config;
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message, 2);
    return fail(error instanceof Error ? error.message : String(error), 2);
  }

  const database = await openDatabase(undefined, { logger: stderrLogger });
  const engine = await createEngine({ config, stores: database.stores, ledger: database.ledger });
  try {
    await engine.plugins.start();
    const service = new RerunService({
      stores: database.stores,
      ledger: database.ledger,
      world: (continueWith) => rerunWorld(engine, continueWith),
      adoptSeq: (sessionId, seq) => engine.bus.adopt(sessionId, seq),
      now: () => Date.now(),
    });
    const sessions = ids.length ? ids : await recentSessions(database.stores.sessions, days);
    const single = ids.length === 1;
    let diverged = 0;
    let failed = 0;
    for (const id of sessions) {
      try {
        const result = await service.run(id, request, "cli", args.save);
        if (result.divergence) diverged++;
        process.stderr.write(
          `[rerun] ${id}: ${result.divergence ? `diverged (${result.divergence.kind})` : "reproduced"}\n`,
        );
        if (single) {
          if (result.divergence) process.stdout.write(`${JSON.stringify(result.divergence)}\n`);
        } else {
          process.stdout.write(`${JSON.stringify({ session: id, ...result })}\n`);
        }
      } catch (error) {
        if (!(error instanceof RerunInputError)) throw error;
        if (single) return fail(error.message, 2);
        failed++;
        process.stdout.write(`${JSON.stringify({ session: id, error: error.message })}\n`);
      }
    }
    if (!single) {
      const summary = { sessions: sessions.length, reproduced: sessions.length - diverged - failed, diverged, failed };
      process.stdout.write(`${JSON.stringify({ summary })}\n`);
    }
    return diverged || failed ? 1 : 0;
  } finally {
    await engine.close("rerun finished");
    await database.close();
  }
}

/** Sessions of their own (not re-runs or forks), active in the last `days` (null: all). */
async function recentSessions(
  sessions: { list(): Promise<{ id: string; lastActiveAt: number; origin?: unknown }[]> },
  days: number | null,
): Promise<string[]> {
  const since = days === null ? 0 : Date.now() - days * DAY_MS;
  return (await sessions.list()).filter((s) => !s.origin && s.lastActiveAt >= since).map((s) => s.id);
}

function fail(message: string, code: number): number {
  process.stderr.write(`maisaka rerun: ${message}\n`);
  return code;
}

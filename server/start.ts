// `npm start`: first-run set-up (Prisma client, migrations, seed, dashboard build), then one process
// serving the dashboard, the API and the live stream with the engine inside. SIGINT/SIGTERM stop it
// gracefully (exit 0).
//
// With MAISAKA_ADMIN_TOKEN in its environment this process is only a launcher (launcher.ts): it
// starts the server without that variable and hands it the token over a pipe, so no environment
// block the server or its children can read holds the credential.
//
// Environment read here (docs/interface.md#environment): MAISAKA_NO_UI=1 serves only /api and Socket.IO (no Next build or
// handler; the tests use it), MAISAKA_DATA_DIR (default ./data) holds what the server writes for the
// instance (server/data-dir.ts: the generated operator token, the emoji files, the SQLite database),
// MAISAKA_CHILD_UIDS (a range, default 61000-61183) is where the plugin Runner and each stdio MCP
// server get a user of their own when the server runs as root (sandbox/child-uids.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AdminToken } from "./auth/admin-token";
import { launchServer, readHandedToken, shouldLaunch } from "./launcher";
import { PrivateFilesError, restrictNewFiles, tightenConfigFile, tightenDataFiles } from "./sandbox/private-files";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** A shutdown taking longer than this exits at once with status 1 (so does a repeated signal). */
const SHUTDOWN_TIMEOUT_MS = 20_000;
/** Signals this soon after the first belong to the same request to stop. */
const REPEAT_SIGNAL_GRACE_MS = 2_000;

function log(line: string): void {
  process.stdout.write(`[maisaka] ${line}\n`);
}

function fail(line: string): never {
  process.stderr.write(`[maisaka] ${line}\n`);
  process.exit(1);
}

/** Runs a set-up step as its own node process; a failure stops the start. */
function runStep(what: string, args: string[]): void {
  log(`${what} (once)...`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit", env: process.env });
  if (result.status !== 0) fail(`${what} failed (exit ${result.status ?? result.signal})`);
}

/** The database file, or null for a URL that opening the database will refuse with a clear message. */
function sqliteFileOf(databaseUrl: string, toPath: (url: string) => string): string | null {
  try {
    return toPath(databaseUrl);
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const env = process.env;
  if (shouldLaunch(env)) return launchServer(fileURLToPath(import.meta.url), log);
  const handedToken = await readHandedToken(env);
  env.NEXT_TELEMETRY_DISABLED = "1";
  const dev = env.NODE_ENV === "development";
  const withDashboard = env.MAISAKA_NO_UI !== "1";
  // React and Next pick their production builds from NODE_ENV (assigned this way: Next types it readonly).
  if (!dev && !env.NODE_ENV) Object.assign(env, { NODE_ENV: "production" });

  // The generated client must exist before anything importing it loads, hence the dynamic imports below.
  if (!existsSync(path.join(root, "generated/prisma/client.ts"))) {
    runStep("generating the Prisma client", ["--import", "tsx", path.join(root, "server/db/generate.ts")]);
  }
  if (withDashboard && !dev && !existsSync(path.join(root, ".next/BUILD_ID"))) {
    const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
    runStep("building the dashboard", [nextBin, "build"]);
  }

  // From here on (not the set-up steps' build output): the database, its -wal/-shm and the token file
  // are created private to this user.
  restrictNewFiles();
  const { resolveAdminToken, AdminTokenError } = await import("./auth/admin-token");
  const { ConfigError, loadConfig } = await import("./config/load");
  const { databaseUrlFromEnv, DatabaseError } = await import("./db");
  const { displayDatabaseUrl, sqlitePathFromUrl } = await import("./db/database-url");
  const { ChildIsolation, ChildIsolationError } = await import("./sandbox/child-isolation");
  const { startAppServer } = await import("./app-server");
  const { dataDirFromEnv } = await import("./data-dir");
  const { ClusterConfigError } = await import("./cluster/config");

  const databaseUrl = databaseUrlFromEnv(env);
  let app: Awaited<ReturnType<typeof startAppServer>>;
  let tokenSource: AdminToken["source"];
  let isolationNotice: string | null;
  try {
    const { config, path: configPath } = loadConfig(env);
    if (configPath) tightenConfigFile(configPath);
    const dataDir = dataDirFromEnv(env);
    tightenDataFiles(dataDir, sqliteFileOf(databaseUrl, sqlitePathFromUrl));
    const token = resolveAdminToken(handedToken === null ? env : { MAISAKA_ADMIN_TOKEN: handedToken }, dataDir);
    tokenSource = token.source;
    isolationNotice = ChildIsolation.fromEnv(env).notice();
    app = await startAppServer({
      host: env.HOST?.trim() || "127.0.0.1",
      port: Number(env.PORT ?? 3000),
      databaseUrl,
      config,
      dataDir,
      token: token.token,
      tokenSource: token.source,
      dashboard: withDashboard ? { dev, dir: root } : false,
      env,
      plugins: true,
    });
    log(`config: ${configPath ?? "defaults (no maisaka.config.json)"}`);
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof AdminTokenError ||
      error instanceof DatabaseError ||
      error instanceof ChildIsolationError ||
      error instanceof PrivateFilesError ||
      error instanceof ClusterConfigError
    )
      fail(error.message);
    throw error;
  }

  const { database, engine } = app;
  const model = engine.model.info();
  log(
    `database: ${displayDatabaseUrl(databaseUrl)}${database.applied.length ? ` (applied ${database.applied.join(", ")})` : ""}${database.seeded ? `, seeded ${database.seeded} emoji` : ""}`,
  );
  log(
    model.simulated
      ? "model: SIMULATED (offline deterministic model; set OPENAI_BASE_URL / OPENAI_API_KEY to use a real one)"
      : `model: ${model.name} via ${model.provider}`,
  );
  if (app.restored) log(`restored ${app.restored} session(s)`);
  if (isolationNotice) log(isolationNotice);
  log(
    tokenSource.kind === "env"
      ? `operator token: from MAISAKA_ADMIN_TOKEN${handedToken === null ? "" : " (handed over by the launcher)"}`
      : `operator token: in ${tokenSource.path}${tokenSource.created ? " (generated now)" : ""}`,
  );
  log(
    `serving ${withDashboard ? `the dashboard${dev ? " (dev)" : ""}, ` : ""}the API and the live stream on ${app.url}`,
  );

  let stoppingSince: number | null = null;
  const stop = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      // npm forwards the terminal's Ctrl-C, so one key press can arrive twice: only a later one forces.
      if (Date.now() - stoppingSince < REPEAT_SIGNAL_GRACE_MS) return;
      fail(`${signal} again: exiting without finishing the shutdown`);
    }
    stoppingSince = Date.now();
    log(`${signal}: shutting down (finishing the ledger, saving sessions)...`);
    setTimeout(() => fail("shutdown timed out"), SHUTDOWN_TIMEOUT_MS).unref();
    app.close(`signal ${signal}`).then(
      () => {
        log("stopped");
        process.exit(0);
      },
      (error: unknown) =>
        fail(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // A stray rejection in one session must not take the whole server down; it is logged loudly.
  process.on("unhandledRejection", (reason) => {
    process.stderr.write(
      `[maisaka] unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`,
    );
  });
}

main().catch((error: unknown) =>
  fail(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
);

// What the browser measures share: a production build of the dashboard (built when missing or older
// than the sources), the real server serving it over a given database, Debian's Chromium through
// Playwright (e2e/support/chromium.ts: never a downloaded browser), a logged-in page, and the
// recorded session the e2e suite replays (e2e/fixtures/group-chat.events.jsonl) repeated to any length.
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "../../e2e/support/chromium";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { startAppServer, type AppServer } from "../../server/app-server";
import { benchConfig, benchEnv, silentLogger } from "./engine";
import { BENCH_TOKEN } from "./server";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Everything the client bundle is built from. */
const SOURCES = ["app", "components", "lib", "instrumentation-client.ts", "next.config.js"];

function newestSource(): number {
  const listed = spawnSync("git", ["ls-files", "--", ...SOURCES], { cwd: root, encoding: "utf8" });
  let newest = 0;
  for (const file of listed.stdout.split("\n").filter(Boolean)) {
    try {
      newest = Math.max(newest, statSync(path.join(root, file)).mtimeMs);
    } catch {
      // Deleted in the work tree: not part of the build.
    }
  }
  return newest;
}

/** `next build` unless .next holds a build newer than every source file; returns what it did. */
export function ensureBuild(): string {
  let builtAt = 0;
  try {
    builtAt = statSync(path.join(root, ".next", "BUILD_ID")).mtimeMs;
  } catch {
    // No build yet.
  }
  if (builtAt > newestSource()) return "the existing .next build";
  const started = performance.now();
  const build = spawnSync("npx", ["next", "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  if (build.status !== 0) throw new Error(`next build failed (${build.status ?? build.signal})`);
  return `a fresh next build (${((performance.now() - started) / 1000).toFixed(0)} s)`;
}

/** The real server with the production dashboard, on a free loopback port. */
export function startDashboardServer(databaseUrl: string): Promise<AppServer> {
  // Next reads the mode from the process environment as well as from its options.
  Object.assign(process.env, { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" });
  return startAppServer({
    host: "127.0.0.1",
    port: 0,
    databaseUrl,
    config: benchConfig(),
    token: BENCH_TOKEN,
    dashboard: { dev: false, dir: root },
    logger: silentLogger,
    env: benchEnv,
  });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions);
}

/** A page of its own context, logged in with the operator token (the login cookie). */
export async function loggedInPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1400, height: 900 } });
  // Functions handed to the page are compiled by tsx, which may name them through an `__name` helper.
  await context.addInitScript({ content: "globalThis.__name = (f) => f;" });
  const page = await context.newPage();
  const login = await page.request.post("/api/auth/login", { data: { token: BENCH_TOKEN } });
  if (!login.ok()) throw new Error(`login: ${login.status()}`);
  page.on("pageerror", (e) => console.error(`[page] ${e.message}`));
  return page;
}

/** The page clock (ms since its navigation started) at the first animation frame where `selector` matches. */
export async function firstFrameWith(page: Page, selector: string): Promise<number> {
  const handle = await page.waitForFunction(
    (sel) => (document.querySelector(sel) ? performance.now() : null),
    selector,
    { timeout: 60_000, polling: "raf" },
  );
  return Number(await handle.jsonValue());
}

/** The socket.io client as a browser script, for the bare baseline pages. */
export function socketIoClientScript(): string {
  return readFileSync(path.join(root, "node_modules/socket.io-client/dist/socket.io.min.js"), "utf8");
}

/** Session time between two copies of the recording. */
const COPY_EVERY_MS = 20_000;

function recording(): MonitorEvent[] {
  return readFileSync(path.join(root, "e2e/fixtures/group-chat.events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => monitorEventSchema.parse(JSON.parse(line)))
    .filter((e) => e.type !== "session.start" && e.type !== "session.stop");
}

/**
 * `count` events of a recorded group chat for `sessionId` from seq `firstSeq`: copies of the
 * recording with unique cycle and message ids per copy (cycle c2 of copy 7 becomes k7c2), times
 * moved with the copy from `startTs`. Mean ~650 bytes of JSON per event.
 */
export function recordedEvents(sessionId: string, count: number, firstSeq = 1, startTs = Date.now()): MonitorEvent[] {
  const template = recording();
  const t0 = template[0].ts;
  const out: MonitorEvent[] = [];
  for (let k = 0; out.length < count; k++) {
    const shift = startTs + k * COPY_EVERY_MS - t0;
    for (const e of template) {
      if (out.length >= count) break;
      const json = JSON.stringify(e.data).replace(/"(cycleId|messageId|replyTo|msg_id)":"([^"]+)"/g, `"$1":"k${k}$2"`);
      const data = JSON.parse(json) as Record<string, unknown>;
      if (typeof data.stageStartedAt === "number") data.stageStartedAt += shift;
      out.push({ ...e, sessionId, seq: firstSeq + out.length, ts: e.ts + shift, data } as MonitorEvent); // the data of the same type, ids renamed
    }
  }
  return out;
}

// Playwright's webServer: a fresh temp database, one recorded session of 10,000+ events (copies of
// a real simulated run, time-shifted), a config that accepts OneBot reverse connections, then the
// real server (server/start.ts) in this process.
import { readFileSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { openDatabase } from "../../server/db";
import { BIG_SESSION, BIG_SESSION_EVENTS, E2E_DIR, E2E_ONEBOT_TOKEN, E2E_PORT, E2E_TOKEN } from "./env";

const here = path.dirname(fileURLToPath(import.meta.url));
/** Session time between two copies of the template: a long group chat, about 1.7 hours. */
const COPY_EVERY_MS = 20_000;

function bigSessionEvents(start: number): MonitorEvent[] {
  const template = readFileSync(path.join(here, "../fixtures/group-chat.events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => monitorEventSchema.parse(JSON.parse(line)));
  const t0 = template[0].ts;
  const body = template.filter((e) => e.type !== "session.start");
  const out: MonitorEvent[] = [];
  const push = (e: MonitorEvent) => out.push({ ...e, seq: out.length + 1, sessionId: BIG_SESSION });
  push({
    ...template[0],
    data: { ...template[0].data, sessionId: BIG_SESSION, sessionName: "Recorded group chat (10k events)" },
  } as MonitorEvent);
  for (let k = 0; out.length < BIG_SESSION_EVENTS; k++) {
    for (const e of body) {
      if (out.length >= BIG_SESSION_EVENTS) break;
      // Unique ids per copy (cycle c2 of copy 7 becomes k7c2), and times moved with the copy.
      const shift = start + k * COPY_EVERY_MS - t0;
      const json = JSON.stringify(e.data).replace(/"(cycleId|messageId|replyTo|msg_id)":"([^"]+)"/g, `"$1":"k${k}$2"`);
      const data = JSON.parse(json) as Record<string, unknown>;
      if (typeof data.stageStartedAt === "number") data.stageStartedAt += shift;
      push({ ...e, ts: e.ts + shift, data } as MonitorEvent);
    }
  }
  return out.map((e) => monitorEventSchema.parse(e));
}

async function seed(databaseUrl: string): Promise<void> {
  const db = await openDatabase(databaseUrl);
  const start = Date.now() - 2 * 3_600_000;
  const events = bigSessionEvents(start);
  await db.stores.sessions.upsert({
    id: BIG_SESSION,
    name: "Recorded group chat (10k events)",
    isGroupChat: true,
    platform: "e2e",
    groupId: "e2e-group",
    userId: null,
    createdAt: start,
    lastActiveAt: events[events.length - 1].ts,
  });
  for (let i = 0; i < events.length; i += 1_000) await db.ledger.append(events.slice(i, i + 1_000));
  await db.close();
}

rmSync(E2E_DIR, { recursive: true, force: true });
mkdirSync(E2E_DIR, { recursive: true });
const databaseUrl = `file:${path.join(E2E_DIR, "e2e.db")}`;
// Defaults everywhere but the OneBot reverse endpoint, which e2e/platforms.spec.ts connects to, and
// the private talk value.
const configPath = path.join(E2E_DIR, "maisaka.config.json");
writeFileSync(
  configPath,
  JSON.stringify({
    // The test's image host is on loopback: chat images from private networks allowed. Friend requests
    // are listed on the platforms page (e2e/platforms.spec.ts).
    platforms: {
      onebot: {
        accessToken: E2E_ONEBOT_TOKEN,
        reverse: { enabled: true },
        imagesFromPrivateNetworks: true,
        requests: "notify",
      },
    },
    // Private chats need 4 messages for a turn (group chats answer each one): e2e/silence.spec.ts
    // watches a message wait below the threshold.
    chat: { privateTalkValue: 0.25 },
    // e2e/usage.spec.ts seeds a day's spend over this budget and checks the banner.
    models: { budgets: { perEndpoint: { "e2e-budget.example": 1 } } },
  }),
);
Object.assign(process.env, {
  MAISAKA_CONFIG: configPath,
  DATABASE_URL: databaseUrl,
  MAISAKA_ADMIN_TOKEN: E2E_TOKEN,
  MAISAKA_DATA_DIR: E2E_DIR,
  HOST: "127.0.0.1",
  PORT: String(E2E_PORT),
  // E2E_DEV=1 serves the pages with Next's dev server (no build; for working on the tests).
  NODE_ENV: process.env.E2E_DEV === "1" ? "development" : "production",
});
// The model must be the simulated one whatever the developer's shell says.
delete process.env.OPENAI_BASE_URL;
delete process.env.OPENAI_API_KEY;
await seed(databaseUrl);
await import("../../server/start");

// Postgres going away under a running server (mode 2), for real: its own server, stopped (fast shutdown)
// mid-session. Writes then fail with the connection refused: health says error, a message POST and a
// route's own write answer 503 with Retry-After (no 500), one log line per state change. Once Postgres is
// back the health probe finds it without any write, the bus's backlog lands in order and messages are
// accepted again: nothing acknowledged lost, seq continues.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Health } from "../../lib/api/schemas";
import { migrate } from "../../server/db/migrate";
import { startPostgres, type PostgresServer } from "../support/services";
import { startFaultRig, type FaultRig } from "./support";

const SESSION = "pgdown";
let postgres: PostgresServer;
let rig: FaultRig;

beforeAll(async () => {
  postgres = await startPostgres();
  const databaseUrl = await postgres.createDatabase("maisaka");
  await migrate(databaseUrl);
  rig = await startFaultRig({ databaseUrl });
  await rig.server.createSession({ id: SESSION, name: SESSION });
  await rig.say(SESSION);
  await rig.waitForEnds(SESSION, "finish");
});

afterAll(async () => {
  // Up again whatever the test left it as: closing flushes the bus's backlog into it.
  await postgres?.startAgain().catch(() => undefined);
  await rig?.close();
  await postgres?.stop();
});

const health = async () => (await rig.server.api("GET", "/api/health")).json as Health;

describe("Postgres down under a running server", () => {
  it("503 with Retry-After and health error while it is down; everything resumes when it is back", async () => {
    const bus = rig.server.app.engine.bus;
    const logMark = rig.server.logs.length;
    postgres.stopForFault();
    await expect
      .poll(
        () => {
          bus.emit(SESSION, "session.stop", { reason: "while down" });
          return rig.server.app.database.health.status().state;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe("error");

    const post = await rig.server.say(SESSION, "数据库还在吗？", { messageId: "refused-1" });
    expect(post.status, post.text).toBe(503);
    expect(Number(post.headers.get("retry-after"))).toBeGreaterThan(0);
    // Refused before the message is stored: by the intake check, or by the session lookup meeting the server gone.
    expect(post.json).toEqual({ error: expect.stringMatching(/cannot take writes \(error\)|cannot be written/) });
    const status = await rig.server.api("GET", "/api/health");
    expect(status.status).toBe(503);
    expect(status.json).toMatchObject({ ok: false, db: { ok: false, state: "error", detail: expect.any(String) } });
    // A route whose own write meets the missing server answers the same way.
    const created = await rig.server.api("POST", "/api/sessions", { id: "born-down", name: "x" });
    expect(created.status, created.text).toBe(503);
    expect(created.headers.get("retry-after")).toBeTruthy();
    // An acknowledged-class event emitted while down is kept in the backlog.
    bus.emit(SESSION, "message.ingested", { speakerName: "t", content: "kept", messageId: "kept-1" });
    const whileDown = rig.server.logs.slice(logMark);
    // One line per state change, not per failed write. (A write that committed just before the shutdown may
    // answer after the first failure: error, ok, error at most.)
    const errorLines = whileDown.filter((l) => l.includes("[db] state error")).length;
    expect(errorLines, whileDown.join("\n")).toBeGreaterThanOrEqual(1);
    expect(errorLines, whileDown.join("\n")).toBeLessThanOrEqual(2);
    expect(whileDown.some((l) => l.includes("\n    at "))).toBe(false);

    await postgres.startAgain();
    await expect.poll(async () => (await health()).db.state, { timeout: 15_000 }).toBe("ok");
    await bus.whenFlushed();
    expect(bus.pending).toBe(0);
    await rig.say(SESSION, "回来了");
    await rig.waitForEnds(SESSION, "finish", 2);
    const ledger = await rig.ledger(SESSION);
    expect(ledger.map((e) => e.seq)).toEqual(Array.from({ length: ledger.length }, (_, i) => i + 1));
    expect(ledger.filter((e) => e.type === "message.ingested" && e.data.messageId === "kept-1")).toHaveLength(1);
    await rig.expectIntact(SESSION);
    const all = rig.server.logs.slice(logMark);
    expect(all.filter((l) => l.includes("[db] writable again (was error)")).length).toBe(errorLines);
  });
});

// The HeartflowManager's ownership gate: a runtime runs only for a session this node owns, a message
// saved while the lease went elsewhere is refused (the caller retries at the new owner), and a runtime
// whose lease was lost is dropped without writing anything (no snapshot, no session.stop).
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { createEngine, type Engine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { SessionNotOwnedError, type OwnershipGate } from "../../server/engine";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { SessionRecord } from "../../server/stores/sessions";
import { until } from "../support/until";

/** A gate over a fixed set of owned sessions (the real one is server/cluster/ownership.ts). */
class FixedGate implements OwnershipGate {
  readonly owned = new Set<string>();
  async claim(id: string): Promise<boolean> {
    return this.owned.has(id);
  }
  ownsLocally(id: string): boolean {
    return this.owned.has(id);
  }
}

const session = (id: string): SessionRecord => ({
  id,
  name: id,
  isGroupChat: false,
  platform: "api",
  groupId: null,
  userId: "u1",
  createdAt: 0,
  lastActiveAt: 0,
});

let counter = 0;
const message = (sessionId: string, text: string): ChatMessageRecord => ({
  sessionId,
  messageId: `m${++counter}`,
  direction: "inbound",
  userId: "u1",
  userName: "Alice",
  text,
  atBot: true,
  ts: Date.now(),
});

let engine: Engine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

async function start() {
  const stores = createMemoryStores();
  engine = await createEngine({
    config: parseConfig({ chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0 } }, "test"),
    stores,
    ledger: new MemoryLedger(),
    // No model endpoint: the SIMULATED model.
    env: { NODE_ENV: "test" },
  });
  const events: MonitorEvent[] = [];
  engine.bus.subscribe((e) => void events.push(e));
  const gate = new FixedGate();
  engine.manager.setOwnershipGate(gate);
  return { engine, stores, events, gate };
}

describe("the ownership gate", () => {
  it("creates no runtime for a session another node owns, and refuses a message saved as the lease moved", async () => {
    const { engine, gate, events } = await start();
    await expect(
      engine.manager.registerMessage(session("theirs"), message("theirs", "麦麦你好吗？")),
    ).rejects.toBeInstanceOf(SessionNotOwnedError);
    expect(engine.manager.get("theirs")).toBeUndefined();
    expect(events.filter((e) => e.sessionId === "theirs")).toEqual([]);

    gate.owned.add("mine");
    const runtime = await engine.manager.registerMessage(session("mine"), message("mine", "麦麦你好吗？"));
    expect(runtime.session.id).toBe("mine");
    await until(() => events.some((e) => e.sessionId === "mine" && e.type === "message.sent"), "the reply");

    // The lease goes while the message is being saved: the caller must retry at the new owner.
    const late = message("mine", "still there?");
    const save = engine.manager.registerMessage(session("mine"), late);
    gate.owned.delete("mine");
    await expect(save).rejects.toBeInstanceOf(SessionNotOwnedError);
  });

  it("drops a runtime whose lease was lost without a snapshot or session.stop; a stop saves both", async () => {
    const { engine, stores, events, gate } = await start();
    gate.owned.add("a");
    gate.owned.add("b");
    for (const id of ["a", "b"]) await engine.manager.registerMessage(session(id), message(id, "麦麦你好吗？"));
    await until(
      () => ["a", "b"].every((id) => events.some((e) => e.sessionId === id && e.type === "message.sent")),
      "both replies",
    );
    await until(() => engine.manager.isIdle("a") && engine.manager.isIdle("b"), "both turns to end");
    await engine.bus.whenFlushed();
    const saved = async (id: string) => JSON.stringify((await stores.sessions.loadSnapshot(id))?.state ?? null);
    const before = { a: await saved("a"), b: await saved("b") };

    // A new message for each, then a's lease is lost and b is stopped the ordinary way.
    for (const id of ["a", "b"]) await engine.manager.registerMessage(session(id), message(id, "麦麦，还在吗？"));
    gate.owned.delete("a");
    await engine.manager.discard("a");
    await engine.manager.unload("b", "test");
    await engine.bus.whenFlushed();

    expect(engine.manager.get("a")).toBeUndefined();
    expect(await saved("a")).toBe(before.a);
    expect(events.filter((e) => e.sessionId === "a" && e.type === "session.stop")).toEqual([]);
    expect(await saved("b")).not.toBe(before.b);
    expect(events.filter((e) => e.sessionId === "b" && e.type === "session.stop")).toHaveLength(1);
  });

  for (const when of ["before", "after"] as const) {
    it(`a message whose save ends after its runtime was dropped is taken once by the next runtime (restored ${when} the save)`, async () => {
      const { engine, stores, events, gate } = await start();
      gate.owned.add("c");
      await engine.manager.registerMessage(session("c"), message("c", "麦麦你好吗？"));
      await until(() => engine.manager.isIdle("c") && events.some((e) => e.type === "message.sent"), "the first turn");

      // The next save is held; meanwhile the lease is lost and taken again by this node, and the
      // session's next runtime restores from the store before or after the message is in it.
      const late = message("c", "麦麦，这条晚到了");
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let saving = false;
      const save = stores.messages.save.bind(stores.messages);
      stores.messages.save = async (m) => {
        if (m.messageId === late.messageId && !saving) {
          saving = true;
          await held;
        }
        return save(m);
      };
      const acked = engine.manager.registerMessage(session("c"), late);
      await until(() => saving, "the save to start");
      await engine.manager.discard("c");
      const next = when === "before" ? await engine.manager.getOrCreate(session("c")) : null;
      release();
      const runtime = await acked;

      expect(runtime.isStopped).toBe(false);
      if (next) expect(runtime).toBe(next);
      const ingested = () => events.filter((e) => e.type === "message.ingested" && e.data.messageId === late.messageId);
      await until(() => ingested().length > 0, "the late message to be ingested");
      await until(() => engine.manager.isIdle("c"), "the turn to end");
      expect(ingested()).toHaveLength(1);
      // Announced once too: the runtime that restored it from the store takes the handed-over copy as known.
      expect(events.filter((e) => e.type === "message.pending" && e.data.messageId === late.messageId)).toHaveLength(1);
    });
  }
});

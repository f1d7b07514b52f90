// Restart recovery at the engine level: a message acknowledged (stored) but not yet in the
// runtime's snapshot when the process died is picked up again as pending.
import { describe, expect, it } from "vitest";
import { createEngine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import type { SessionRecord } from "../../server/stores/types";
import { startScriptedOpenAi } from "../support/scripted-openai";

const session: SessionRecord = {
  id: "r1",
  name: "recovery",
  isGroupChat: true,
  platform: "test",
  groupId: "g",
  userId: null,
  createdAt: 0,
  lastActiveAt: 0,
};

describe("restart recovery", () => {
  it("turns stored messages the snapshot does not know into pending work", async () => {
    const model = await startScriptedOpenAi();
    const stores = createMemoryStores();
    const ledger = new MemoryLedger();
    const config = parseConfig({ chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0 } }, "test");
    const client = new OpenAiModelClient({
      baseURL: model.baseURL,
      apiKey: "k",
      models: { planner: "p" },
      sleep: async () => undefined,
    });
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

    const first = await createEngine({ config, stores, ledger, model: client, logger });
    await first.manager.getOrCreate(session);
    await first.close("crash stand-in");
    // Stored and acknowledged, but the process "died" before the runtime saw it.
    await stores.messages.save({
      sessionId: "r1",
      messageId: "late-1",
      direction: "inbound",
      userId: "u1",
      userName: "Alice",
      text: "刚发的消息",
      ts: Date.now(),
    });

    model.enqueue({ kind: "response", content: "", toolCalls: [{ name: "no_action", arguments: {} }] });
    const second = await createEngine({ config, stores, ledger, model: client, logger });
    expect(await second.manager.restoreAll()).toBe(1);
    await model.waitForRequest(0);
    expect(JSON.stringify(model.requests[0].body.messages)).toContain("刚发的消息");
    const ingested = (await ledger.read("r1", 0, 100)).filter((e) => e.type === "message.ingested");
    expect(ingested.map((e) => (e.type === "message.ingested" ? e.data.messageId : ""))).toEqual(["late-1"]);
    await second.close("done");
    await model.close();
  });
});

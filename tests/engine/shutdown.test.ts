// Stopping a runtime aborts every model call in flight: the timing gate, the replyer, the emoji
// chooser and the learning extraction each get the runtime's stop signal. The scripted server
// never answers; stop() must still return, and the server must see its HTTP request aborted.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/engine-harness";
import type { ReceivedRequest } from "../support/scripted-openai";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Fails (instead of hanging the suite) when the promise does not settle. */
async function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function stopWhileHanging(harness: Harness, request: ReceivedRequest): Promise<void> {
  await settlesWithin(harness.runtime.stop("shutdown"), 5_000, "stop()");
  await settlesWithin(request.settled, 5_000, "the hanging request");
  expect(request.aborted).toBe(true);
  expect(harness.runtime.isStopped).toBe(true);
  // An aborted call at shutdown is the stop, not a failed turn.
  expect(harness.warnings.join("\n")).not.toMatch(/turn failed/);
}

describe("shutdown aborts in-flight model calls", () => {
  it("the timing gate", async () => {
    h = await startHarness();
    h.model.enqueue({ kind: "hang" });
    await h.send("在吗");
    const gate = await h.model.waitForRequest(0);
    expect(gate.body.model).toBe("gate-model");
    await stopWhileHanging(h, gate);
  });

  it("the replyer", async () => {
    h = await startHarness();
    h.model.enqueue(
      { kind: "response", content: "回一下", toolCalls: [{ id: "r1", name: "reply", arguments: { msg_id: "m1" } }] },
      { kind: "hang" },
    );
    await h.send("@麦麦 在吗", { atBot: true });
    const replyer = await h.model.waitForRequest(1);
    expect(replyer.body.model).toBe("replyer-model");
    await stopWhileHanging(h, replyer);
  });

  it("the emoji chooser", async () => {
    h = await startHarness({
      emojis: [
        { id: "e1", file: "e1.png", description: "开心", emotions: ["happy"] },
        { id: "e2", file: "e2.png", description: "难过", emotions: ["sad"] },
      ],
    });
    h.model.enqueue(
      { kind: "response", content: "发个表情", toolCalls: [{ id: "s1", name: "send_emoji", arguments: {} }] },
      { kind: "hang" },
    );
    await h.send("@麦麦 哈哈", { atBot: true });
    const chooser = await h.model.waitForRequest(1);
    expect(chooser.body.model).toBe("utils-model");
    await stopWhileHanging(h, chooser);
  });

  it("the learning extraction of trimmed messages", async () => {
    // Threshold 4 (talkValue 0.25) and a window of 1: four messages in one turn overflow the
    // window at the end of the first cycle, and three of them go to learning.
    h = await startHarness({ config: { chat: { talkValue: 0.25, maxContextSize: 1 } } });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "no_action", arguments: {} }] },
      { kind: "hang" },
    );
    for (const text of ["第一句", "第二句", "第三句", "第四句"]) await h.send(text);
    const learning = await h.model.waitForRequest(1);
    expect(learning.body.model).toBe("utils-model");
    expect(JSON.stringify(learning.body.messages)).toContain("第一句");
    await stopWhileHanging(h, learning);
  });
});

// The model endpoint misbehaving for one session while two others chat on: 429 with Retry-After,
// 500s until the retries are spent, a response that stalls past the timeout, a stream cut off midway,
// and tool-call arguments that are not JSON. Each failure shows as events (llm.retry, llm.error,
// cycle.end llm_error, a failed tool.execution), the faulty session recovers on its next message, the
// others are served throughout, and nothing acknowledged is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { startFaultRig, type FaultRig } from "./support";

let rig: FaultRig;
const STEADY = ["steady-a", "steady-b"];

beforeAll(async () => {
  rig = await startFaultRig({ modelTimeoutMs: 1_000 });
  for (const id of ["faulty", ...STEADY]) await rig.server.createSession({ id, name: id });
});

afterAll(async () => {
  await rig?.close();
});

const ofType = <T extends MonitorEvent["type"]>(events: MonitorEvent[], type: T) =>
  events.filter((e): e is Extract<MonitorEvent, { type: T }> => e.type === type);

/** The faulty session's turn and one turn of every steady session, all at once. */
async function turnWithNeighbours(faultyEnd: string): Promise<void> {
  const finishedBefore = STEADY.map((id) => rig.endsOf(id).filter((r) => r === "finish").length);
  await Promise.all([rig.say("faulty"), ...STEADY.map((id) => rig.say(id))]);
  await rig.waitForEnds("faulty", faultyEnd, rig.endsOf("faulty").filter((r) => r === faultyEnd).length + 1);
  await Promise.all(STEADY.map((id, i) => rig.waitForEnds(id, "finish", finishedBefore[i] + 1)));
}

/** Events of the faulty session after `seq`. */
async function faultyAfter(seq: number): Promise<MonitorEvent[]> {
  return (await rig.ledger("faulty")).filter((e) => e.seq > seq);
}

const lastSeq = async () => (await rig.ledger("faulty")).at(-1)?.seq ?? 0;

describe("model endpoint faults", () => {
  it("429 with Retry-After, then 500: retried with llm.retry events, and the turn finishes", async () => {
    const from = await lastSeq();
    rig.script("faulty", "planner", { kind: "error", status: 429, retryAfter: 3 }, { kind: "error", status: 500 });
    await turnWithNeighbours("finish");
    const events = await faultyAfter(from);
    expect(
      ofType(events, "llm.retry").map((e) => [e.data.task, e.data.status, e.data.attempt, e.data.delayMs]),
    ).toEqual([
      ["planner", 429, 1, 3_000],
      ["planner", 500, 2, expect.any(Number)],
    ]);
    expect(ofType(events, "llm.error")).toEqual([]);
  });

  it("500 until the retries are spent: llm.error and cycle.end llm_error; the next message is answered", async () => {
    const from = await lastSeq();
    rig.script(
      "faulty",
      "planner",
      { kind: "error", status: 500 },
      { kind: "error", status: 502 },
      { kind: "error", status: 503 },
    );
    await turnWithNeighbours("llm_error");
    const events = await faultyAfter(from);
    expect(ofType(events, "llm.retry")).toHaveLength(2);
    expect(ofType(events, "llm.error").map((e) => [e.data.task, e.data.status, e.data.attempt])).toEqual([
      ["planner", 503, 3],
    ]);
    expect(ofType(events, "planner.finalized").at(-1)?.data.finalState).toMatchObject({
      endReason: "llm_error",
      error: expect.stringMatching(/503/),
    });

    await turnWithNeighbours("finish");
  });

  it("a response that stalls past the timeout, and a stream cut off midway: retried, then finished", async () => {
    const from = await lastSeq();
    rig.script("faulty", "timingGate", { kind: "hang", content: "我想想" });
    rig.script("faulty", "planner", { kind: "truncate", content: "我觉得应该" });
    await turnWithNeighbours("finish");
    const retries = ofType(await faultyAfter(from), "llm.retry").map((e) => [e.data.task, e.data.error]);
    expect(retries).toEqual([
      ["timingGate", expect.stringMatching(/timed out after 1000 ms/)],
      ["planner", expect.stringMatching(/stream interrupted|truncated/)],
    ]);
    // The stalled request was given up on: the client closed it.
    expect(rig.llm.abortedCount).toBeGreaterThanOrEqual(1);
  });

  it("tool-call arguments that are not JSON: a failed tool.execution the planner sees, and the turn goes on", async () => {
    const from = await lastSeq();
    rig.script("faulty", "planner", {
      kind: "response",
      content: "查一下",
      toolCalls: [{ id: "bad-1", name: "query_memory", arguments: '{"query": "周末' }],
    });
    await turnWithNeighbours("finish");
    const events = await faultyAfter(from);
    const failed = ofType(events, "tool.execution").find((e) => e.data.toolCallId === "bad-1");
    expect(failed?.data).toMatchObject({ success: false, toolName: "query_memory", args: { _raw: '{"query": "周末' } });
    expect(failed?.data.result).toMatch(/JSON/);
    // The next planner round saw the failure as the call's result.
    const next = rig.llm.requests
      .map((r) => r.body)
      .filter((b) => b.model === "planner-model" && JSON.stringify(b.messages).includes("bad-1"))
      .at(-1);
    expect(next?.messages.some((m) => m.role === "tool" && m.tool_call_id === "bad-1")).toBe(true);
    expect(ofType(events, "cycle.end").map((e) => e.data.endReason)).toEqual(["tool_continue", "finish"]);
  });

  it("lost nothing acknowledged in any session, and the stream matches the ledger", async () => {
    await rig.expectIntact("faulty", ...STEADY);
    for (const id of STEADY)
      expect(
        rig.endsOf(id).every((r) => r === "finish"),
        id,
      ).toBe(true);
  });
});

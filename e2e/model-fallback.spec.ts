// After a fallback the cycle card says which endpoint and model answered (the gate's and the planner's),
// and "what the model saw" names it beside the model asked; the cycles the first target answered say
// nothing of it. The session is the recorded group chat of e2e/fixtures, its second cycle answered by a
// fallback, imported as a bundle (POST /api/sessions/import).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE_CONTENT_TYPE, BUNDLE_SCHEMA_VERSION, importedSessionSchema } from "../lib/api/bundle";
import { monitorEventSchema, type ModelAnswer, type MonitorEvent } from "../lib/events/schemas";
import { expect, shot, test } from "./support/fixtures";

const here = path.dirname(fileURLToPath(import.meta.url));
const SESSION = "e2e-fallback";
const FALLBACK: ModelAnswer = { endpoint: "spare", model: "gemma", fallback: true };

/** The fixture's events, cycle c2's gate and planner answered by the fallback. */
function events(): MonitorEvent[] {
  return readFileSync(path.join(here, "fixtures/group-chat.events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => monitorEventSchema.parse(JSON.parse(line)))
    .map((e): MonitorEvent => {
      const own: MonitorEvent = { ...e, sessionId: SESSION };
      if (own.type === "session.start") return { ...own, data: { ...own.data, sessionId: SESSION } };
      if (own.type === "timing_gate.result" && own.data.cycleId === "c2")
        return { ...own, data: { ...own.data, answeredBy: FALLBACK } };
      if (own.type === "planner.finalized" && own.data.cycleId === "c2" && own.data.planner && own.data.timingGate) {
        const { timingGate, planner } = own.data;
        return {
          ...own,
          data: {
            ...own.data,
            timingGate: { ...timingGate, result: { ...timingGate.result, answeredBy: FALLBACK } },
            planner: { ...planner, answeredBy: FALLBACK },
          },
        };
      }
      return own;
    });
}

function bundle(list: MonitorEvent[]): string {
  const header = {
    kind: "header",
    schemaVersion: BUNDLE_SCHEMA_VERSION,
    session: {
      id: SESSION,
      name: "Fallback e2e",
      isGroupChat: true,
      platform: "e2e",
      groupId: "e2e-fallback-group",
      userId: null,
      createdAt: list[0].ts,
      lastActiveAt: list[list.length - 1].ts,
    },
    counts: { events: list.length },
    exportedAt: Date.now(),
  };
  const end = { kind: "end", events: list.length, media: 0, missingMedia: 0, modelCalls: 0, toolRecords: 0 };
  return [header, ...list.map((event) => ({ kind: "event", event })), end].map((l) => JSON.stringify(l)).join("\n");
}

test("the cycle card names the endpoint and model that answered after a fallback", async ({ page, api }) => {
  const res = await api.ctx.post("/api/sessions/import", {
    data: bundle(events()),
    headers: { "content-type": BUNDLE_CONTENT_TYPE },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = importedSessionSchema.parse(await res.json());

  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  const card = page.locator('[data-testid="cycle-card"][data-cycle-id="c2"]');
  await expect(card).toBeVisible();
  const answered = card.getByTestId("answered-by");
  await expect(answered).toHaveCount(2);
  for (const badge of await answered.all()) {
    await expect(badge).toContainText("gemma");
    await expect(badge).toContainText("spare");
  }
  // Only that cycle fell back.
  await expect(page.getByTestId("answered-by")).toHaveCount(2);

  await card.getByRole("button", { name: /What the model saw/ }).click();
  await expect(card.getByTestId("mi-answered-by")).toContainText("gemma");
  await shot(page, "cycle-fallback");
});

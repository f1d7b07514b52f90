// Nothing is lost: reloading mid-stream, or losing the connection for a while, ends with exactly
// the ledger's events in the page (same last seq, same count, no duplicate).
import { expect, shot, test, timelineState, type Api } from "./support/fixtures";

async function stream(api: Api, id: string, count: number, everyMs: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await api.send(id, `消息 ${i + 1}：今天的进度怎么样？`, { userName: i % 2 ? "Bob" : "Alice", atBot: i % 5 === 4 });
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function expectMatchesLedger(page: import("@playwright/test").Page, api: Api, id: string): Promise<void> {
  const ledger = await api.events(id);
  const messages = ledger.filter((e) => e.type === "message.ingested" || e.type === "message.sent").length;
  await expect
    .poll(async () => timelineState(page), { timeout: 20_000 })
    .toEqual({
      lastSeq: ledger[ledger.length - 1].seq,
      events: ledger.length,
      messages,
      cycles: ledger.filter((e) => e.type === "cycle.start").length,
    });
}

test("reload mid-stream and miss nothing", async ({ page, api }) => {
  const id = await api.createSession("Reload e2e");
  await page.goto(`/sessions/${id}`);
  const sending = stream(api, id, 16, 250);
  await expect.poll(async () => (await timelineState(page)).messages).toBeGreaterThan(3);
  await page.reload();
  await expect.poll(async () => (await timelineState(page)).messages).toBeGreaterThan(6);
  await page.reload();
  await sending;
  await api.waitIdle(id);
  await expectMatchesLedger(page, api, id);
  await shot(page, "session-after-reload");
});

test("offline for a while: a clear banner, then resume from the last seq", async ({ page, api, context }) => {
  const id = await api.createSession("Offline e2e");
  await page.goto(`/sessions/${id}`);
  await api.send(id, "断线前", { userName: "Alice", atBot: true });
  await expect(page.getByTestId("bot-reply").first()).toBeVisible();

  await context.setOffline(true);
  await expect(page.getByTestId("offline-banner")).toBeVisible({ timeout: 20_000 });
  await shot(page, "session-offline");
  await stream(api, id, 6, 200);
  await api.waitIdle(id);
  await context.setOffline(false);
  await expect(page.getByTestId("offline-banner")).toBeHidden({ timeout: 30_000 });
  await expectMatchesLedger(page, api, id);
});

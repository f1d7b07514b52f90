// Silence made visible: in a private chat (privateTalkValue 0.25 in e2e/support/serve.ts, so a turn
// needs 4 messages) a message below the threshold shows in the live view at once with why it waits,
// the overview counts it as pending, and once the fourth message starts a turn the waiting rows turn
// into ordinary ones (not shown twice) that keep how long and why they waited, in the live view and
// the replay. The silences panel lists the quiet stretch.
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";

test("a message below the threshold shows at once with its reason", async ({ page, api }) => {
  const res = await api.ctx.post("/api/sessions", { data: { name: "Silence e2e", isGroupChat: false } });
  expect(res.status(), await res.text()).toBe(201);
  const sessionId = ((await res.json()) as { id: string }).id;

  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  await expect(page.getByText("Nothing has happened in this session yet")).toBeVisible();

  await api.send(sessionId, "第一条：先说个事", { userName: "Alice" });
  const first = page.getByTestId("chat-message").filter({ hasText: "第一条：先说个事" });
  await expect(first).toBeVisible();
  await expect(first).toHaveAttribute("data-pending", "threshold");
  await expect(first.getByTestId("pending-reason")).toContainText("below threshold: 1 of 4 messages");
  await expect(first).toContainText("Alice");
  // The stage panel says why the bot is quiet now.
  await expect(page.getByTestId("pending-now")).toContainText("below threshold: 1 of 4 messages");
  // Nothing took it: no cycle ran.
  await expect(page.getByTestId("cycle-card")).toHaveCount(0);

  await api.send(sessionId, "第二条", { userName: "Alice" });
  const second = page.getByTestId("chat-message").filter({ hasText: "第二条" });
  await expect(second.getByTestId("pending-reason")).toContainText("2 of 4 messages");

  // The overview counts them as pending.
  await page.goto("/");
  const row = page.locator(`tr[data-session-id="${sessionId}"]`);
  await expect(row.getByTestId("pending-count")).toHaveText("2");
  await api.send(sessionId, "第三条", { userName: "Alice" });
  await expect(row.getByTestId("pending-count")).toHaveText("3");

  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  await api.send(sessionId, "第四条", { userName: "Alice" });
  // The fourth reaches the threshold: a turn takes all four and the rows stop waiting, each shown once.
  await expect(page.getByTestId("cycle-card").first()).toBeVisible();
  for (const text of ["第一条：先说个事", "第二条", "第三条", "第四条"]) {
    const rows = page.locator('[data-testid="chat-message"][data-direction="in"]').filter({ hasText: text });
    await expect(rows).toHaveCount(1);
    await expect(rows).not.toHaveAttribute("data-pending", /.+/);
  }
  // Handled, the three that waited keep why on their row; the fourth started the turn at once.
  const waited = (scope: Page | Locator, text: string) =>
    scope.locator('[data-testid="chat-message"][data-direction="in"]').filter({ hasText: text }).getByTestId("waited");
  for (const text of ["第一条：先说个事", "第二条", "第三条"])
    await expect(waited(page, text)).toContainText(/^waited .+: below threshold$/);
  await expect(waited(page, "第四条")).toHaveCount(0);
  await api.waitIdle(sessionId);

  // The silences panel lists the stretch the bot stayed quiet, with its reason.
  await page.getByTestId("silences-panel").getByText("Silences").click();
  await expect(page.getByTestId("silence").first()).toBeVisible();

  // The replay, at its end, shows the same history on the handled rows.
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}/replay`);
  await page.getByTestId("scrubber").focus();
  await page.keyboard.press("End");
  const transcript = page.getByTestId("replay-transcript");
  await expect(transcript.getByText("第四条")).toBeVisible();
  await expect(waited(transcript, "第一条：先说个事")).toContainText("below threshold");
  await expect(waited(transcript, "第一条：先说个事")).toHaveAttribute("title", /1 of 4 messages/);
});

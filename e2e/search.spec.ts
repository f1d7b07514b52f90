// Search across sessions: a Chinese phrase from a chat message and a Latin word are found (the index
// follows the ledger within a second), the snippet marks the match as text, and the keyboard opens
// the replay at that event.
import { expect, test } from "./support/fixtures";

test("find a message by a Chinese phrase and a Latin word, then open the replay there", async ({ page, api }) => {
  const sessionId = await api.createSession("Search e2e");
  const text = "周末去爬山的路线 trailhead<b>x</b>";
  await api.send(sessionId, text, { userName: "Alice", atBot: true });
  await api.waitIdle(sessionId);

  // The index catches up with the ledger in the background (within about a second).
  await expect
    .poll(async () => {
      const res = await api.ctx.get(`/api/search?q=${encodeURIComponent("爬山的路线")}`);
      if (!res.ok()) return false;
      const { hits } = (await res.json()) as { hits: { sessionId: string }[] };
      return hits.some((h) => h.sessionId === sessionId);
    })
    .toBe(true);

  await page.goto("/search");
  const box = page.getByTestId("search-input");
  await box.fill("爬山的路线");
  const hit = page.getByTestId("search-hit").filter({ hasText: sessionId }).first();
  await expect(hit).toBeVisible();
  await expect(hit.locator("mark").first()).toHaveText("爬山的路线");
  // Hostile text in a snippet stays text.
  await expect(hit.locator("b")).toHaveCount(0);

  // The newest hit comes first and is selected: Enter opens the replay at its event.
  await box.fill("trailhead");
  // The new query's hits (the box's query is throttled), not the last one's.
  await expect(page.getByTestId("search-hit").first().locator("mark").first()).toHaveText("trailhead");
  await expect(page.getByTestId("search-hit").first()).toContainText(sessionId);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/sessions/${encodeURIComponent(sessionId)}/replay\\?seq=\\d+`));
});

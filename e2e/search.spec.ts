// Search across sessions: a Chinese phrase from a chat message and a Latin word are found (the index
// follows the ledger within a second), the snippet marks the match as text, hits name their sessions
// (two of the same name told apart), and the keyboard opens the replay at that event, marked there.
import { expect, test } from "./support/fixtures";

test("find a message by a Chinese phrase and a Latin word, then open the replay there", async ({ page, api }) => {
  const sessionId = await api.createSession("Search e2e");
  // Another session of the same name, saying the same.
  const twinId = await api.createSession("Search e2e");
  const text = "周末去爬山的路线 trailhead<b>x</b>";
  await api.send(twinId, text, { userName: "Bob" });
  await api.waitIdle(twinId);
  await api.send(sessionId, text, { userName: "Alice", atBot: true });
  await api.waitIdle(sessionId);

  // The index catches up with the ledger in the background (within about a second).
  await expect
    .poll(async () => {
      const res = await api.ctx.get(`/api/search?q=${encodeURIComponent("爬山的路线")}`);
      if (!res.ok()) return false;
      const { hits } = (await res.json()) as { hits: { sessionId: string }[] };
      return [sessionId, twinId].every((id) => hits.some((h) => h.sessionId === id));
    })
    .toBe(true);

  await page.goto("/search");
  const box = page.getByTestId("search-input");
  await box.fill("爬山的路线");
  const inSession = (id: string) =>
    page
      .getByTestId("search-hit")
      .filter({ has: page.locator(`[data-testid="session-name"][data-session-id="${id}"]`) });
  const hit = inSession(sessionId).first();
  await expect(hit).toBeVisible();
  await expect(hit.locator("mark").first()).toHaveText("爬山的路线");
  // Hostile text in a snippet stays text.
  await expect(hit.locator("b")).toHaveCount(0);
  // The session by its name, not its id; the twin of the same name told apart by its detail.
  const name = hit.getByTestId("session-name");
  const twinName = inSession(twinId).first().getByTestId("session-name");
  await expect(name).toContainText("Search e2e");
  await expect(twinName).toContainText("Search e2e");
  expect(await name.textContent()).not.toBe(await twinName.textContent());
  await expect(hit).not.toContainText(sessionId);

  // The newest hit comes first and is selected: Enter opens the replay at its event.
  await box.fill("trailhead");
  // The new query's hits (the box's query is throttled), not the last one's.
  await expect(page.getByTestId("search-hit").first().locator("mark").first()).toHaveText("trailhead");
  await expect(page.getByTestId("search-hit").first().getByTestId("session-name")).toHaveAttribute(
    "data-session-id",
    sessionId,
  );
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/sessions/${encodeURIComponent(sessionId)}/replay\\?seq=\\d+`));
  // The replay marks what the hit named (the planner's text: its cycle's card).
  await expect(page.getByTestId("replay").getByTestId("replay-hit")).toHaveCount(1);

  // A message hit: the replay marks that message in the transcript.
  await page.goto("/search");
  await page.getByTestId("search-input").fill("trailhead");
  await page.getByLabel("Kind", { exact: true }).selectOption("message");
  const messageHit = inSession(sessionId).first();
  await expect(messageHit.locator(".search-kind-message")).toBeVisible();
  await messageHit.getByRole("link", { name: "Replay here" }).click();
  const marked = page.getByTestId("replay-transcript").getByTestId("replay-hit");
  await expect(marked).toHaveCount(1);
  await expect(marked).toContainText("trailhead");
});

// "What the model saw" of a session's newest cycle that replied: the live view follows the end of
// the timeline, so that card is rendered; the panel opens on its button.
import type { Locator, Page } from "@playwright/test";

export async function newestReplyModelInput(page: Page, sessionId: string): Promise<Locator> {
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  const card = page
    .getByTestId("cycle-card")
    .filter({ has: page.getByTestId("bot-reply") })
    .last();
  await card.getByRole("button", { name: /What the model saw/ }).click();
  return card.getByRole("region", { name: "What the model saw" });
}

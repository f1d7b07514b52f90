// Untrusted chat text is rendered as text: a message carrying HTML and script shows literally and
// runs nothing (the fixture fails the test on any dialog or page error).
import { expect, shot, test } from "./support/fixtures";

const HOSTILE = `<img src=x onerror=alert(1)><script>alert(2)</script>`;

test("a hostile message renders inert, as literal text", async ({ page, api }) => {
  const id = await api.createSession("Hostile input");
  await page.goto(`/sessions/${id}`);
  await page.getByLabel("Your name in the chat").fill(`<b onmouseover=alert(3)>Mallory</b>`);
  await page.getByLabel("Message text").fill(HOSTILE);
  await page.getByRole("button", { name: "Send", exact: true }).click();

  const row = page.getByTestId("chat-message").filter({ hasText: "onerror=alert(1)" });
  await expect(row).toBeVisible();
  await expect(row.locator(".msg-text")).toHaveText(HOSTILE);
  await expect(row.locator(".msg-who")).toHaveText("<b onmouseover=alert(3)>Mallory</b>");
  await row.hover();
  // No element came out of the text.
  expect(await page.locator('.timeline img, .timeline script, img[src="x"]').count()).toBe(0);
  await api.waitIdle(id);
  // The model saw it as text too, and the view shows it as text.
  const card = page.getByTestId("cycle-card").last();
  await card.getByRole("button", { name: /What the model saw/ }).click();
  await expect(card.getByRole("region", { name: "What the model saw" })).toContainText("<script>alert(2)</script>");
  expect(await page.locator(".model-input script, .model-input img").count()).toBe(0);
  await page.waitForTimeout(300);
  await shot(page, "hostile-message");
});

// The sessions overview: a sortable header (mouse and keyboard), archive with a confirmation (the row
// leaves the list, the Archived filter shows it) and delete with a required reason.
import { expect, test } from "./support/fixtures";

test("the overview sorts by a column, archives after a confirmation and deletes with a reason", async ({
  page,
  api,
}) => {
  const first = await api.createSession("Sortcase a");
  const second = await api.createSession("Sortcase b");
  await page.goto("/");
  await page.getByLabel("Filter sessions").fill("Sortcase");
  const rows = page.locator("tbody tr");
  await expect(rows).toHaveCount(2);
  // Newest first by default.
  await expect(rows.first()).toHaveAttribute("data-session-id", second);

  const byName = page.getByRole("button", { name: /^Session/ });
  await byName.click();
  await expect(page.locator("th[aria-sort='ascending']")).toContainText("Session");
  await expect(rows.first()).toHaveAttribute("data-session-id", first);
  await byName.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("th[aria-sort='descending']")).toContainText("Session");
  await expect(rows.first()).toHaveAttribute("data-session-id", second);

  const row = page.locator(`tr[data-session-id="${first}"]`);
  await row.getByRole("button", { name: "Archive" }).click();
  const archive = page.getByTestId("confirm-archive");
  await expect(archive).toBeVisible();
  await archive.getByRole("button", { name: "Archive" }).click();
  await expect(row).toHaveCount(0);
  await page.getByRole("group", { name: "Archived sessions" }).getByRole("button", { name: "archived" }).click();
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-archived", "true");

  await row.getByRole("button", { name: "Delete" }).click();
  const remove = page.getByTestId("confirm-delete");
  const confirm = remove.getByRole("button", { name: "Delete for good" });
  await expect(confirm).toBeDisabled();
  await remove.getByLabel("Reason").fill("e2e clean-up");
  await confirm.click();
  await expect(row).toHaveCount(0);
  expect((await api.ctx.get(`/api/sessions/${first}`)).status()).toBe(404);
});

// Tools run by hand on /tools: a form generated from the parameters schema, the server's per-field
// errors, a destructive tool (the fortune plugin's tool declares no hints: destructive by the MCP
// default) run only after the confirmation dialog, and a run inside a session recorded in its timeline.
import { expect, shot, test } from "./support/fixtures";

const row = (page: import("@playwright/test").Page, tool: string) =>
  page.locator(`[data-testid="tool-row"][data-tool="${tool}"]`);

test("run a destructive tool by hand: refused until confirmed, then its result", async ({ page }) => {
  await page.goto("/tools");
  const fortune = row(page, "draw_fortune");
  await fortune.getByTestId("run-tool").click();
  const panel = fortune.getByTestId("tool-run");
  await expect(panel.getByTestId("run-context")).toHaveValue("");
  // The required mark and the field from the schema.
  await expect(panel.locator("label", { hasText: "user_name" })).toContainText("*");
  await panel.getByLabel(/user_name/).fill("<b>Ada</b>");
  await panel.getByRole("button", { name: "Run draw_fortune" }).click();

  // 409 needsConfirm: the dialog asks; Escape (focus starts on Cancel) runs nothing.
  const dialog = page.getByTestId("confirm-run");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await shot(page, "tool-run-confirm");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(panel.getByTestId("run-result")).toHaveCount(0);

  await panel.getByRole("button", { name: "Run draw_fortune" }).click();
  await page.getByTestId("confirm-run").getByRole("button", { name: "Run anyway" }).click();
  const result = panel.getByTestId("run-result");
  await expect(result).toHaveAttribute("data-success", "true");
  // Hostile text comes back as text, not markup.
  await expect(result.getByTestId("run-result-text")).toContainText("<b>Ada</b> 的今日运势");
  await expect(result.locator("b")).toHaveCount(0);
  await shot(page, "tool-run-result");
});

test("the form names the fields the server refused; raw JSON is a fallback", async ({ page }) => {
  await page.goto("/tools");
  const search = row(page, "tool_search");
  await search.getByTestId("run-tool").click();
  const panel = search.getByTestId("tool-run");
  // The default is prefilled; 0 is below the schema's minimum: the registry's validator names the field.
  const limit = panel.getByLabel(/^limit/);
  await expect(limit).not.toHaveValue("");
  await panel.getByLabel(/^query/).fill("dice");
  await limit.fill("0");
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.locator('[data-field="limit"]')).toHaveAttribute("aria-invalid", "true");
  await expect(panel.getByTestId("field-error")).toContainText(">= 1");
  // Text that is no number never leaves the page.
  await limit.fill("two");
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.getByTestId("field-error")).toContainText("must be a number");

  await limit.fill("3");
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.getByTestId("run-result")).toBeVisible();
  await expect(panel.getByTestId("field-error")).toHaveCount(0);

  // Raw JSON carries what the form would send, and the server's answer to a wrong type.
  await panel.getByRole("group", { name: "Arguments editor" }).getByRole("button", { name: "raw JSON" }).click();
  await expect(panel.getByTestId("run-raw")).toHaveValue(/"dice"/);
  await panel.getByTestId("run-raw").fill('{"query": 5}');
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.getByTestId("run-problem")).toContainText("query: must be string");
});

test("a run inside a session is an operator.action in its timeline", async ({ page, api }) => {
  const id = await api.createSession("Run by hand e2e");
  await page.goto("/tools");
  const dice = row(page, "roll_dice");
  await dice.getByTestId("run-tool").click();
  const panel = dice.getByTestId("tool-run");
  await panel.getByTestId("run-context").selectOption(id);
  await panel.getByLabel(/notation/).fill("2d6");
  await panel.getByLabel(/seed/).fill("7");
  await panel.getByRole("button", { name: "Run roll_dice" }).click();
  // Read-only: no confirmation asked.
  await expect(panel.getByTestId("run-result")).toHaveAttribute("data-success", "true");
  await expect(page.getByTestId("confirm-run")).toHaveCount(0);
  await panel.getByText("Structured content").click();
  await expect(panel.locator("details pre")).toContainText('"rolls"');

  await expect
    .poll(async () =>
      (await api.events(id)).some(
        (e) => e.type === "operator.action" && e.data.action === "tool.invoke" && e.data.target === "roll_dice",
      ),
    )
    .toBe(true);
});

// The tool catalog: disable a tool for one session with a reason, see the audit entry, see the
// engine acknowledge it, and see the tool missing from the next cycle's offered tools.
import { expect, shot, test } from "./support/fixtures";
import { newestReplyModelInput } from "./support/model-input";

const TOOL = "send_emoji";

test("disable a tool for a session and see it missing from the next cycle", async ({ page, api }) => {
  const id = await api.createSession("Toggle e2e");
  await api.send(id, "先热个身", { userName: "Carol", atBot: true });
  await api.waitIdle(id);

  await page.goto(`/tools?session=${id}`);
  await expect(page.getByTestId("scope-select")).toHaveValue(id);
  const row = page.locator(`[data-testid="tool-row"][data-tool="${TOOL}"]`);
  await expect(row).toHaveAttribute("data-enabled", "true");
  await expect(row.getByTestId("annotation-badges").locator("[data-hint]")).toHaveCount(4);
  await shot(page, "tools");

  await row.getByRole("switch").click();
  await row.getByLabel("Reason").fill("e2e: no emoji in this chat");
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row.getByTestId("toggle-ack")).toHaveAttribute("data-phase", "recorded");
  await expect(row).toHaveAttribute("data-enabled", "false");
  const audit = page.getByTestId("audit-list").locator(`li[data-tool="${TOOL}"]`).first();
  await expect(audit).toContainText("e2e: no emoji in this chat");
  await expect(audit).toContainText("→ off");

  // The engine's next cycle of that session confirms it.
  await api.send(id, "再来一句", { userName: "Carol", atBot: true });
  await expect(row.getByTestId("toggle-ack")).toHaveAttribute("data-phase", "applied", { timeout: 30_000 });
  // It names the session, not its id.
  await expect(row.getByTestId("toggle-ack")).toContainText("Toggle e2e");
  await expect(row.getByTestId("toggle-ack")).not.toContainText(id);
  await shot(page, "tools-toggle-applied");

  // The filters find it by state and by name.
  await page.getByRole("group", { name: "State" }).getByRole("button", { name: "disabled" }).click();
  await expect(page.getByTestId("tool-row")).toHaveCount(1);
  await page.getByRole("group", { name: "State" }).getByRole("button", { name: "all" }).click();
  await page.getByLabel("Search tools").fill("emoji");
  await expect(page.getByTestId("tool-row").first()).toHaveAttribute("data-tool", TOOL);

  // The live view: the newest planner request no longer offers the tool and says why.
  await api.waitIdle(id);
  const panel = await newestReplyModelInput(page, id);
  await expect(panel.getByTestId("offered-tools").locator('[data-tool="reply"]')).toBeVisible();
  await expect(panel.getByTestId("offered-tools").locator(`[data-tool="${TOOL}"]`)).toHaveCount(0);
  await expect(panel.locator(".withheld li").filter({ hasText: TOOL })).toContainText("disabled");
  await shot(page, "session-withheld-tool");

  // Global view is untouched by a session switch.
  await page.goto("/tools");
  await expect(page.locator(`[data-testid="tool-row"][data-tool="${TOOL}"]`)).toHaveAttribute("data-enabled", "true");
});

test("icons follow the theme, a neutral glyph stands in when there is none", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/tools");
  // Builtin tools declare no icon: the neutral glyph.
  await expect(page.locator('[data-testid="tool-row"][data-tool="reply"]').getByTestId("tool-glyph")).toBeVisible();
  // The dice plugin gives a light and a dark variant: the one for the theme in use is drawn.
  const dice = page.locator('[data-testid="tool-row"][data-tool="roll_dice"] img.tool-icon');
  await expect(dice).toHaveAttribute("data-theme-choice", "light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(dice).toHaveAttribute("data-theme-choice", "dark");
  // Every hint is shown, explicit ones solid and defaults dashed (the dice omit idempotentHint).
  const hints = page.locator('[data-testid="tool-row"][data-tool="roll_dice"] [data-hint]');
  await expect(hints).toHaveCount(4);
  await expect(page.locator('[data-tool="roll_dice"] [data-hint="idempotentHint"]')).toHaveAttribute(
    "data-explicit",
    "false",
  );
  await expect(page.locator('[data-tool="roll_dice"] [data-hint="readOnlyHint"]')).toHaveAttribute(
    "data-explicit",
    "true",
  );
  await page
    .locator('[data-testid="tool-row"][data-tool="roll_dice"]')
    .getByRole("button", { name: "parameters" })
    .click();
  await expect(page.locator('[data-testid="tool-row"][data-tool="roll_dice"] .schema-table')).toContainText("notation");
  await shot(page, "tools-dark");
});

test("the model endpoints panel says what the engine talks to (here the SIMULATED model)", async ({ page }) => {
  await page.goto("/tools");
  const panel = page.getByTestId("model-endpoints");
  await expect(panel).toBeVisible();
  await expect(panel).toContainText("SIMULATED");
  await expect(panel).toContainText(/calls, \d+ failed/);
});

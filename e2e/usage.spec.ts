// The usage page in Chromium from seeded usage: calls written straight into the server's SQLite
// file (as the model clients record them), then the page draws its charts (uPlot canvases with a
// legend per task), its tables hold the seeded model's exact cost, and the budget banner shows an
// endpoint over its daily budget (e2e/support/serve.ts configures one for e2e-budget.example).
// The seeded rows are removed afterwards, so no other spec sees the banner.
import Database from "better-sqlite3";
import path from "node:path";
import type { ModelUsageRecord } from "../server/stores/types";
import { insertUsage } from "../tests/support/usage-seed";
import { usageRecord } from "../tests/support/usage-record";
import { E2E_DIR } from "./support/env";
import { expect, test } from "./support/fixtures";

const DB_FILE = path.join(E2E_DIR, "e2e.db");
const HOUR = 3_600_000;
const MODEL = "e2e-usage-model";
const ENDPOINT = "e2e-usage.example";
const BUDGET_ENDPOINT = "e2e-budget.example";

function seededCalls(now: number): ModelUsageRecord[] {
  const calls: ModelUsageRecord[] = [];
  // 3 sessions × 4 tasks × 6 hours of the last day: 72 calls of MODEL at $0.125 each = $9.
  for (let h = 1; h <= 6; h++)
    for (const sessionId of ["e2e-usage-a", "e2e-usage-b", "e2e-usage-c"])
      for (const task of ["timingGate", "planner", "replyer", "utils"])
        calls.push(
          usageRecord({
            task,
            model: MODEL,
            endpoint: ENDPOINT,
            sessionId,
            latencyMs: 100 * h,
            costUsd: 0.125,
            ts: now - h * HOUR,
          }),
        );
  // Today's spend on the budgeted endpoint: $2 over its $1 budget.
  calls.push(usageRecord({ model: "e2e-budget-model", endpoint: BUDGET_ENDPOINT, costUsd: 2, ts: now - 1_000 }));
  return calls;
}

function removeSeeded(): void {
  const db = new Database(DB_FILE);
  db.pragma("busy_timeout = 5000");
  db.prepare(`DELETE FROM "ModelUsage" WHERE "endpoint" IN (?, ?)`).run(ENDPOINT, BUDGET_ENDPOINT);
  db.close();
}

test.describe("usage page", () => {
  test.beforeAll(() => {
    // The budgeted call lands today (UTC): keep it after midnight even when the run starts at 00:00.
    insertUsage(DB_FILE, seededCalls(Math.max(Date.now(), Math.floor(Date.now() / 86_400_000) * 86_400_000 + 2_000)));
  });
  test.afterAll(removeSeeded);

  test("charts render from seeded usage, the tables hold its figures, the budget banner shows", async ({ page }) => {
    await page.goto("/usage");
    await expect(page.getByRole("heading", { name: "Usage and cost" })).toBeVisible();

    for (const chart of ["chart-cost", "chart-tokens", "chart-calls", "chart-latency", "chart-errors"]) {
      await expect(page.getByTestId(chart).locator("canvas")).toHaveCount(1);
    }
    // One legend entry per task (split by task), in the chart of cost.
    const legend = page.getByTestId("chart-cost").locator(".u-legend");
    for (const task of ["planner", "timing gate", "replyer", "utils"]) await expect(legend).toContainText(task);
    // The latency chart: p50 and p95.
    await expect(page.getByTestId("chart-latency").locator(".u-legend")).toContainText("p95");
    // Hovering the newest hour puts its values into the legend: the planner's $2 of the budgeted call.
    const over = page.getByTestId("chart-cost").locator(".u-over");
    const box = await over.boundingBox();
    if (!box) throw new Error("chart has no plot area");
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    const planner = legend.locator(".u-series").filter({ hasText: "planner" }).locator(".u-value");
    await expect(planner).toHaveText("$2.00");

    // The model table: the seeded model's calls and exact cost ($9 = 72 × $0.125).
    const modelRow = page.getByTestId("usage-table-model").locator(`[data-testid="usage-row"][data-key="${MODEL}"]`);
    await expect(modelRow).toContainText("72");
    await expect(modelRow.getByTestId("usage-cost")).toHaveText("$9.00");
    // By session: each seeded session has a third of it, sortable by cost.
    const sessions = page.getByTestId("usage-table-session");
    await expect(sessions.locator('[data-key="e2e-usage-b"]').getByTestId("usage-cost")).toHaveText("$3.00");

    // Splitting by model puts the seeded model into the chart legend.
    await page.getByRole("button", { name: "By model", exact: true }).click();
    await expect(legend).toContainText(MODEL);

    // Over budget today: the banner names the endpoint, on this page and on the sessions list.
    const banner = page.getByTestId("budget-banner");
    await expect(banner).toContainText(BUDGET_ENDPOINT);
    await expect(banner).toContainText("$2.00 of $1.00");
    await page.goto("/");
    await expect(page.getByTestId("budget-banner")).toBeVisible();
  });
});

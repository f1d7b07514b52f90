// The usage page in Chromium from seeded usage: calls written straight into the server's SQLite
// file (as the model clients record them), then the page draws its charts (uPlot canvases with a
// legend per task), its tables hold the seeded model's exact cost, and the budget banner shows an
// endpoint over its daily budget (e2e/support/serve.ts configures one for e2e-budget.example).
// The seeded rows are removed afterwards, so no other spec sees the banner.
import Database from "better-sqlite3";
import path from "node:path";
import type { ModelUsageRecord } from "../server/stores/usage";
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
  // Twenty days ago, an hour of calls of a model with no price (the e2e config has none at all).
  for (let i = 0; i < 5; i++)
    calls.push(
      usageRecord({ model: UNPRICED_MODEL, endpoint: ENDPOINT, costUsd: null, ts: now - 20 * DAY + i * 60_000 }),
    );
  return calls;
}

const DAY = 24 * HOUR;
const UNPRICED_MODEL = "e2e-unpriced-model";

/** A datetime-local input's value for a time (local, minutes). */
function localInput(ts: number): string {
  const d = new Date(ts - new Date(ts).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
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

  test("finer buckets for a day, a legend that reads the latest bucket, sessions by name, an empty cost chart explained", async ({
    page,
    api,
  }) => {
    for (const [id, name] of [
      ["e2e-usage-a", "用量群"],
      ["e2e-usage-b", "用量群"],
    ])
      await api.ctx.post("/api/sessions", { data: { id, name } });
    await page.goto("/usage");
    // A day: 15-minute bars by default, 5 minutes and hours on offer, days not.
    const buckets = page.getByTestId("usage-buckets");
    await expect(buckets.getByRole("button", { name: "15 minutes" })).toHaveAttribute("aria-pressed", "true");
    await expect(buckets.getByRole("button")).toHaveText(["5 minutes", "15 minutes", "hour"]);
    const series = page.waitForResponse((r) => r.url().includes("/api/usage/series") && r.url().includes("bucket=5m"));
    await buckets.getByRole("button", { name: "5 minutes", exact: true }).click();
    expect((await series).ok()).toBe(true);
    await expect(page.getByTestId("chart-cost").locator("canvas")).toHaveCount(1);

    // Away from the chart the legend reads the latest bucket, not dashes.
    const time = page.getByTestId("chart-cost").locator(".u-legend .u-series").first();
    await expect(time).toContainText("Time");
    await expect(time).toContainText("latest");
    await expect(time.locator(".u-value")).not.toHaveText(/^-+$|^–$/);

    // Sessions by name; the two of one name told apart.
    const table = page.getByTestId("usage-table-session");
    const a = table.locator('[data-key="e2e-usage-a"] [data-testid="session-name"]');
    const b = table.locator('[data-key="e2e-usage-b"] [data-testid="session-name"]');
    await expect(a).toContainText("用量群");
    await expect(b).toContainText("用量群");
    expect(await a.textContent()).not.toBe(await b.textContent());
    await page.getByRole("button", { name: "By session", exact: true }).click();
    await expect(page.getByTestId("chart-cost").locator(".u-legend")).toContainText("用量群");

    // Thirty days: by day; 5 minutes would be too many bars.
    await page.getByRole("group", { name: "Time range" }).getByRole("button", { name: "30 days" }).click();
    await expect(buckets.getByRole("button", { name: "day" })).toHaveAttribute("aria-pressed", "true");
    await expect(buckets.getByRole("button", { name: "5 minutes", exact: true })).toHaveCount(0);

    // The unpriced hour twenty days ago: no cost, and the chart says why.
    const now = Date.now();
    await page.getByRole("group", { name: "Time range" }).getByRole("button", { name: "Custom" }).click();
    await page.getByLabel("From", { exact: true }).fill(localInput(now - 20 * DAY - HOUR));
    await page.getByLabel("To", { exact: true }).fill(localInput(now - 20 * DAY + 2 * HOUR));
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByTestId("cost-hint")).toContainText("no model has a price");
    await expect(page.getByTestId("cost-hint")).toContainText("5 calls");
    // A range with no calls at all.
    await page.getByLabel("From", { exact: true }).fill(localInput(now - 40 * DAY));
    await page.getByLabel("To", { exact: true }).fill(localInput(now - 39 * DAY));
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByTestId("cost-hint")).toHaveText("No model calls in this range.");
    for (const id of ["e2e-usage-a", "e2e-usage-b"])
      await api.ctx.delete(`/api/sessions/${id}`, { data: { reason: "e2e usage names" } });
  });
});

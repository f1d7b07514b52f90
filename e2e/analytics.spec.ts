// Behaviour analytics in Chromium: a session driven by the simulated model shows up in the charts
// (uPlot canvases drawn), a click on the current hour's bar lists the cycles behind it, and a listed
// cycle opens the replay at that cycle. The session's own analytics page is reached from its live view.
import { expect, shot, test } from "./support/fixtures";

test("charts rendered from a session, a bar opens the cycles behind it", async ({ page, api }) => {
  const sessionId = await api.createSession("Analytics e2e");
  await api.send(sessionId, "@bot 今天天气怎么样", { userName: "Alice", atBot: true });
  await api.waitIdle(sessionId);
  // The derived tables follow the ledger: wait until the cycles are counted.
  await expect
    .poll(async () => {
      const res = await api.ctx.get(`/api/analytics?sessionId=${encodeURIComponent(sessionId)}`);
      const body = (await res.json()) as { cycles: number[] };
      return body.cycles.reduce((a, b) => a + b, 0);
    })
    .toBeGreaterThan(0);

  await page.goto("/analytics");
  await page.getByTestId("analytics-session").selectOption(sessionId);
  const gate = page.getByTestId("chart-gate");
  await expect(gate.locator("canvas")).toBeVisible();
  for (const id of ["chart-end-reasons", "chart-replies", "chart-interrupts", "chart-silences", "chart-tools"])
    await expect(page.getByTestId(id).locator("canvas")).toBeVisible();
  await shot(page, "analytics");

  // The last bucket (now) is at the right edge of the plot: uPlot's cursor snaps to the nearest bar.
  const end = page.getByTestId("chart-end-reasons").locator(".u-over");
  const box = await end.boundingBox();
  if (!box) throw new Error("no plot area");
  await end.click({ position: { x: box.width - 2, y: box.height / 2 } });
  const list = page.getByTestId("analytics-cycles");
  await expect(list.getByTestId("analytics-cycle-row").first()).toBeVisible();
  const link = list.getByTestId("analytics-cycle-link").first();
  const cycleId = (await link.textContent())?.trim() ?? "";
  expect(cycleId).toMatch(/^c\d+$/);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/.+/replay\\?cycle=${cycleId}$`));
  await expect(page.locator(`[data-testid="cycle-card"][data-cycle-id="${cycleId}"]`)).toHaveClass(/cycle-selected/);

  // The session's own analytics, from its live view.
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  await page.locator(`a[href="/sessions/${encodeURIComponent(sessionId)}/analytics"]`).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/.+/analytics$`));
  await expect(page.getByTestId("chart-gate").locator("canvas")).toBeVisible();
  await expect(page.getByTestId("analytics-tools")).toBeVisible();
});

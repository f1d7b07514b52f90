// The /diff page: two sessions told different things, their first cycles side by side; the
// difference is found, its words marked on each side (hostile markup stays text), `n` goes to it;
// the replay's "mark for diff" leads from one session's cycle to the other's.
import { expect, test, type LedgerEvent } from "./support/fixtures";

const firstCycle = (events: LedgerEvent[]) => {
  const start = events.find((e) => e.type === "cycle.start");
  return String(start?.data.cycleId);
};

test("two cycles side by side, the changed words marked, reached from the replay", async ({ page, api }) => {
  const a = await api.createSession("Diff e2e A");
  const b = await api.createSession("Diff e2e B");
  await api.send(a, "周末一起去看电影吧 <b>x</b>", { userName: "Alice", atBot: true });
  await api.send(b, "周末一起去爬山吧 <b>x</b>", { userName: "Alice", atBot: true });
  await api.waitIdle(a);
  await api.waitIdle(b);
  const ca = firstCycle(await api.events(a));
  const cb = firstCycle(await api.events(b));

  await page.goto(`/diff?a=${encodeURIComponent(`${a}:${ca}`)}&b=${encodeURIComponent(`${b}:${cb}`)}`);
  const diff = page.getByTestId("cycle-diff");
  await expect(diff).toHaveAttribute("data-status", "changed");
  await expect(page.getByTestId("diff-verdict")).toContainText("爬山");
  // The planner saw the other message: its row is changed, the differing words marked on each side.
  const context = page.getByTestId("diff-section-plannerContext");
  await expect(context).toHaveAttribute("data-status", "changed");
  const row = context.locator('[data-testid="diff-entry"][data-status="changed"]').filter({ hasText: "爬山" }).first();
  await expect(row.getByTestId("diff-cell-a").locator("del.diff-mark")).toContainText(["看电影"]);
  await expect(row.getByTestId("diff-cell-b").locator("ins.diff-mark")).toContainText(["爬山"]);
  await expect(row.getByTestId("diff-cell-b")).toContainText("<b>x</b>");
  await expect(diff.locator("b")).toHaveCount(0);
  // The system prompt is the same on both sides.
  await expect(context.locator('[data-testid="diff-entry"]').first()).toHaveAttribute("data-status", "same");

  // n: the first difference gets the focus.
  await page.keyboard.press("n");
  await expect(page.locator('[data-testid="diff-entry"]:focus')).not.toHaveAttribute("data-status", "same");

  // From the replay: mark A's cycle, open B's, diff with the mark.
  await page.goto(`/sessions/${encodeURIComponent(a)}/replay?cycle=${encodeURIComponent(ca)}`);
  await page.getByTestId("replay-diff-mark").click();
  await page.goto(`/sessions/${encodeURIComponent(b)}/replay?cycle=${encodeURIComponent(cb)}`);
  await page.getByTestId("replay-diff-marked").click();
  await expect(page).toHaveURL(/\/diff\?a=/);
  expect(new URL(page.url()).searchParams.get("a")).toBe(`${a}:${ca}`);
  expect(new URL(page.url()).searchParams.get("b")).toBe(`${b}:${cb}`);
  await expect(page.getByTestId("cycle-diff")).toHaveAttribute("data-status", "changed");
});

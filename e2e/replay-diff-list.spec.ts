// The replay's "diff with" list over a long recording (one option per cycle): its options exist only
// while the list has the focus, so the playhead moving from cycle to cycle never renders them again;
// opened, by keys or by the pointer, it lists every cycle but the current one, and a choice opens
// the diff of the two.
import { expect, test } from "./support/fixtures";
import { BIG_SESSION, BIG_SESSION_EVENTS } from "./support/env";

test("the diff list of a 10,000-event replay holds its options only while it has the focus", async ({ page, api }) => {
  const cycles = (await api.events(BIG_SESSION))
    .filter((e) => e.type === "cycle.start")
    .map((e) => String(e.data.cycleId));
  expect(cycles.length).toBeGreaterThan(500);

  await page.goto(`/sessions/${BIG_SESSION}/replay`);
  await expect(page.getByTestId("replay")).toHaveAttribute("data-total", String(BIG_SESSION_EVENTS));
  const bar = page.getByTestId("scrubber");
  await bar.focus();
  await page.keyboard.press("End");
  const list = page.getByTestId("replay-diff-with");
  await expect(list).toBeVisible();
  const options = list.locator("option");
  await expect(options).toHaveCount(1);
  // Cycle by cycle back: the list does not change.
  for (let i = 0; i < 3; i++) await bar.press("Shift+ArrowLeft");
  await expect(page.getByTestId("replay-cycles").getByTestId("cycle-card").first()).toBeVisible();
  await expect(options).toHaveCount(1);

  // Focused (keys), every cycle but the current one; gone again with the focus.
  await list.focus();
  await expect(options).toHaveCount(cycles.length);
  const values = await options.evaluateAll((all) => all.map((o) => (o as HTMLOptionElement).value));
  await list.blur();
  await expect(options).toHaveCount(1);
  // A pointer press lists them before the browser opens the list.
  await list.click();
  await expect(options).toHaveCount(cycles.length);
  await page.keyboard.press("Escape");

  await list.selectOption(values[1]);
  await expect(page).toHaveURL(/\/diff\?/);
  const url = new URL(page.url());
  const current = String(url.searchParams.get("a")).slice(`${BIG_SESSION}:`.length);
  expect(url.searchParams.get("b")).toBe(`${BIG_SESSION}:${values[1]}`);
  expect(cycles).toContain(current);
  expect(values).not.toContain(current);
});

// Replay of a recorded session: play, pause, step by event and by cycle, scrub, speed.
import { expect, shot, test } from "./support/fixtures";
import type { Page } from "@playwright/test";

async function index(page: Page): Promise<number> {
  return Number(await page.getByTestId("replay").getAttribute("data-index"));
}

test("replay a recorded session: play, step, scrub", async ({ page, api }) => {
  const id = await api.createSession("Replay e2e");
  await api.send(id, "大家好", { userName: "Alice" });
  await api.send(id, "今天吃什么", { userName: "Bob", atBot: true });
  await api.waitIdle(id);
  await api.send(id, "火锅怎么样", { userName: "Alice", atBot: true });
  const idle = await api.waitIdle(id);

  await page.goto(`/sessions/${id}/replay`);
  const replay = page.getByTestId("replay");
  await expect(replay).toHaveAttribute("data-total", String(idle.lastSeq));
  // It opens just after the first cycle ended: the first messages and the first card on screen.
  const firstEnd = (await api.events(id)).find((e) => e.type === "cycle.end");
  await expect(replay).toHaveAttribute("data-index", String(firstEnd?.seq));
  await expect(page.getByTestId("replay-cycles").getByTestId("cycle-card")).toHaveCount(1);
  await expect(page.getByTestId("replay-transcript").getByText("大家好")).toBeVisible();

  // Home: before anything.
  await page.getByTestId("scrubber").focus();
  await page.keyboard.press("Home");
  expect(await index(page)).toBe(0);
  await expect(page.getByTestId("replay-cycles").getByTestId("cycle-card")).toHaveCount(0);

  // Step by event.
  await page.getByRole("button", { name: "Next event" }).click();
  await page.getByRole("button", { name: "Next event" }).click();
  expect(await index(page)).toBe(2);
  await page.getByRole("button", { name: "Previous event" }).click();
  expect(await index(page)).toBe(1);

  // Step by cycle: lands just after a cycle.end, and the card is complete.
  await page.getByRole("button", { name: "Next cycle" }).click();
  await expect(page.getByTestId("replay-cycles").getByTestId("cycle-card")).toHaveCount(1);
  await expect(page.getByTestId("replay-cycles").getByTestId("end-reason")).toBeVisible();
  const afterCycle = await index(page);
  await page.getByRole("button", { name: "Next cycle" }).click();
  expect(await index(page)).toBeGreaterThan(afterCycle);
  await page.getByRole("button", { name: "Previous cycle" }).click();
  expect(await index(page)).toBe(afterCycle);

  // Play at 16x until the end; the transcript fills in sync.
  await page.getByRole("group", { name: "Speed" }).getByRole("button", { name: "16×" }).click();
  await page.getByTestId("play").click();
  await expect(replay).toHaveAttribute("data-playing", "true");
  await expect(replay).toHaveAttribute("data-index", String(idle.lastSeq), { timeout: 30_000 });
  await expect(replay).toHaveAttribute("data-playing", "false");
  await expect(page.getByTestId("replay-transcript").getByText("火锅怎么样")).toBeVisible();
  await shot(page, "replay-end");

  // Scrub: a click near the start shows an early state; dragging to the end shows everything.
  const bar = page.getByTestId("scrubber");
  const box = (await bar.boundingBox())!;
  await page.mouse.click(box.x + 2, box.y + box.height / 2);
  const early = await index(page);
  expect(early).toBeLessThan(idle.lastSeq / 2);
  await expect(page.getByTestId("replay-transcript").getByText("火锅怎么样")).toHaveCount(0);
  await page.mouse.move(box.x + box.width * 0.2, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + 10, { steps: 8 });
  await page.mouse.move(box.x + box.width + 40, box.y + 10, { steps: 8 });
  await page.mouse.up();
  expect(await index(page)).toBe(idle.lastSeq);

  // Keyboard: Space plays and pauses, arrows step.
  await bar.focus();
  await page.keyboard.press("Home");
  expect(await index(page)).toBe(0);
  await page.keyboard.press("ArrowRight");
  expect(await index(page)).toBe(1);
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("]");
  await shot(page, "replay");
});

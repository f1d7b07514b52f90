// The console on a phone (390 px) and a laptop (1440 px), in English and Chinese: no page is wider
// than the window, no two controls sit on one another, the links fold behind a menu button on the
// phone, and a page taller than the window keeps its tab bar and header whole (the Data tab bar was
// squeezed to a 2 px line).
import type { Page } from "@playwright/test";
import { BIG_SESSION, E2E_BASE } from "./support/env";
import { expect, shot, test } from "./support/fixtures";

const PAGES = [
  "/",
  "/search",
  "/analytics",
  "/usage",
  "/tools",
  "/sources",
  "/platforms",
  "/cluster",
  "/data",
  "/settings",
  "/audit",
  "/accounts",
  `/sessions/${BIG_SESSION}`,
  `/sessions/${BIG_SESSION}/replay`,
  `/sessions/${BIG_SESSION}/analytics`,
  "/diff",
];

/** What is wrong with the layout now: wider than the window, a page that scrolls sideways, overlaps. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width)
      problems.push(`document ${document.documentElement.scrollWidth} px wide in ${width}`);
    for (const el of document.querySelectorAll<HTMLElement>(".page"))
      if (el.scrollWidth > el.clientWidth + 1)
        problems.push(`.page scrolls sideways: ${el.scrollWidth} in ${el.clientWidth}`);
    const name = (e: Element) =>
      (e.getAttribute("aria-label") ?? e.textContent ?? e.tagName).trim().slice(0, 30) || e.tagName;
    // The part of an element its scrolling or clipping parents let through (a row scrolled out of a
    // list is not on screen, whatever its box says).
    const visiblePart = (e: Element) => {
      const r = e.getBoundingClientRect();
      let box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      for (let p = e.parentElement; p; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (style.overflowX === "visible" && style.overflowY === "visible") continue;
        const c = p.getBoundingClientRect();
        box = {
          left: Math.max(box.left, c.left),
          top: Math.max(box.top, c.top),
          right: Math.min(box.right, c.right),
          bottom: Math.min(box.bottom, c.bottom),
        };
      }
      return box;
    };
    const shown = [
      ...document.querySelectorAll(
        "header a, header button, header select, main a, main button, main input, main select, main textarea",
      ),
    ]
      .map((e) => ({ e, r: visiblePart(e), full: e.getBoundingClientRect() }))
      .filter(
        ({ e, r }) =>
          r.right - r.left > 0 && r.bottom - r.top > 0 && r.bottom > 0 && getComputedStyle(e).visibility !== "hidden",
      );
    for (const { e, full } of shown)
      if (full.right > width + 1 && !e.closest(".table-scroll, table, .vlist"))
        problems.push(`${name(e)} ends at ${full.right} px`);
    for (let i = 0; i < shown.length; i++)
      for (let j = i + 1; j < shown.length; j++) {
        const a = shown[i];
        const b = shown[j];
        if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
        const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (x > 2 && y > 2) problems.push(`"${name(a.e)}" overlaps "${name(b.e)}"`);
      }
    return problems;
  });
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`at 390 px every page fits the window, nothing overlaps (${locale})`, async ({ page, context }) => {
    test.setTimeout(300_000);
    await context.addCookies([{ name: "maisaka_locale", value: locale, url: E2E_BASE }]);
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of PAGES) {
      await page.goto(path);
      await settle(page);
      expect(await layoutProblems(page), path).toEqual([]);
    }
    await shot(page, `narrow-${locale}`);
  });
}

test("at 1440 px every page fits the window, nothing overlaps, the links in one header", async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const path of PAGES) {
    await page.goto(path);
    await settle(page);
    expect(await layoutProblems(page), path).toEqual([]);
  }
  await expect(page.getByTestId("nav-toggle")).toBeHidden();
  const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
  for (const link of await links.all()) await expect(link).toBeVisible();
});

test("at 390 px the links fold behind the menu button, which opens and closes them", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  const menu = page.getByTestId("nav-toggle");
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav).toBeHidden();
  // Brand, model and stream state stay in the header.
  await expect(page.getByTestId("simulated-badge")).toBeVisible();
  const header = (await page.locator("header.nav").boundingBox())!;
  expect(header.height).toBeLessThanOrEqual(50);

  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  for (const link of await nav.getByRole("link").all()) {
    await expect(link).toBeVisible();
    const box = (await link.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await expect(page.getByTestId("locale-switch")).toBeVisible();
  await shot(page, "narrow-menu");
  // Escape closes it; a link followed closes it too.
  await page.keyboard.press("Escape");
  await expect(nav).toBeHidden();
  await menu.click();
  await nav.getByRole("link", { name: "Tools" }).click();
  await expect(page).toHaveURL(/\/tools$/);
  await expect(nav).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
});

test("a Data table taller than the window leaves the tab bar whole", async ({ page, api }) => {
  for (let i = 0; i < 40; i++) {
    const res = await api.ctx.post("/api/memories", { data: { content: `tall table row ${i} `.repeat(6) } });
    expect(res.ok(), await res.text()).toBe(true);
  }
  for (const size of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await page.goto("/data");
    await expect(page.getByTestId("data-row").nth(39)).toBeAttached();
    const page1 = page.locator(".page").first();
    // The table is taller than the window: the page scrolls.
    expect(await page1.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    const tabs = page.getByRole("tablist");
    const bar = (await tabs.boundingBox())!;
    const button = (await page.getByTestId("data-tab-button-memories").boundingBox())!;
    expect(bar.height, `tab bar at ${size.width} px`).toBeGreaterThanOrEqual(button.height);
    expect(button.height).toBeGreaterThanOrEqual(20);
    await page.getByTestId("data-tab-button-jargon").click();
    await expect(page.getByTestId("data-tab-button-jargon")).toHaveAttribute("aria-selected", "true");
  }
});

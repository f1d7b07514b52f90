// A viewer walks every page and finds nothing that would change anything: no add, edit, delete,
// upload, undo, run, restart or save, no switch it could flip, no field it could type into (Settings
// shows its values read-only), no reason to give. The API refuses a viewer anyway; the console must
// not offer what would answer 403.
import type { Page } from "@playwright/test";
import { BIG_SESSION, E2E_BASE } from "./support/env";
import { expect, shot, test } from "./support/fixtures";

/** Names of buttons that change something (the viewer may navigate, filter, sort, play and log out). */
const CHANGE =
  /^(add|edit|delete|remove|save|apply|preview|create|import|upload|run|restart|enable|disable|undo|send|archive|unarchive|re-run|fork|new token|set password|revoke)\b/i;

/** What a viewer could change on the page as it is now. */
async function changeControls(page: Page): Promise<string[]> {
  return page.evaluate((pattern) => {
    const change = new RegExp(pattern, "i");
    const shown = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
    };
    const enabled = (e: Element) => !e.matches(":disabled");
    const name = (e: Element) => (e.getAttribute("aria-label") ?? e.textContent ?? "").trim();
    const out: string[] = [];
    for (const b of document.querySelectorAll("main button, main [role=button]"))
      if (shown(b) && enabled(b) && change.test(name(b))) out.push(`button "${name(b)}"`);
    for (const s of document.querySelectorAll("main [role=switch]"))
      if (shown(s) && enabled(s)) out.push(`switch "${name(s)}"`);
    for (const f of document.querySelectorAll("main input[type=file]")) if (enabled(f)) out.push("file upload");
    // Fields holding a value of the bot's (settings, audience lists, forms): read-only or disabled.
    for (const f of document.querySelectorAll<HTMLInputElement>(
      "main [data-field] input, main [data-field] textarea, main [data-field] select, main .audience-form textarea, main .audience-form input",
    ))
      if (shown(f) && enabled(f) && !f.readOnly)
        out.push(`field ${f.closest("[data-field]")?.getAttribute("data-field") ?? f.name}`);
    for (const f of document.querySelectorAll("main input, main textarea"))
      if (
        shown(f) &&
        [f.getAttribute("name"), f.getAttribute("aria-label")].some((n) => n && /^(reason|原因)/i.test(n))
      )
        out.push(`reason field "${f.getAttribute("aria-label") ?? f.getAttribute("name")}"`);
    return out;
  }, CHANGE.source);
}

test("a viewer walks every page and is offered no change", async ({ browser, api }) => {
  test.setTimeout(180_000);
  // Something on every tab to act on: a memory, jargon, a person, the seeded emojis, a session.
  expect((await api.ctx.post("/api/memories", { data: { content: "viewer e2e memory" } })).ok()).toBe(true);
  expect((await api.ctx.post("/api/jargon", { data: { word: "viewerword", meaning: "e2e" } })).ok()).toBe(true);
  expect((await api.ctx.post("/api/persons", { data: { name: "Viewer E2E" } })).ok()).toBe(true);
  const session = await api.createSession("Viewer walk");
  await api.send(session, "hello", { atBot: true });
  await api.waitIdle(session);
  const created = await api.ctx.post("/api/accounts", { data: { name: `walker-${Date.now()}`, role: "viewer" } });
  expect(created.status(), await created.text()).toBe(201);
  const { token } = (await created.json()) as { token: string };

  const context = await browser.newContext({ baseURL: E2E_BASE });
  const page = await context.newPage();
  expect((await page.request.post("/api/auth/login", { data: { token } })).ok()).toBe(true);

  const check = async (where: string) => {
    await page.waitForLoadState("networkidle");
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
    // The page knows the role once the nav shows it: what is left is its decision.
    await expect(page.getByTestId("nav-account")).toContainText("viewer");
    expect(await changeControls(page), where).toEqual([]);
  };

  for (const path of [
    "/",
    "/search",
    "/analytics",
    "/usage",
    "/tools",
    "/sources",
    "/platforms",
    "/cluster",
    "/audit",
    `/sessions/${session}`,
    `/sessions/${session}/replay`,
    `/sessions/${BIG_SESSION}`,
  ]) {
    await page.goto(path);
    await check(path);
  }

  await page.goto("/data");
  for (const tab of ["memories", "jargon", "persons", "emojis", "learned"]) {
    await page.getByTestId(`data-tab-button-${tab}`).click();
    await expect(page.getByTestId(`data-tab-${tab}`)).toBeVisible();
    if (tab !== "learned") await expect(page.getByTestId("data-row").first()).toBeVisible();
    await check(`/data ${tab}`);
  }
  await shot(page, "viewer-data");

  await page.goto("/settings");
  for (const section of await page.getByRole("tablist").first().getByRole("tab").all()) {
    await section.click();
    await expect(page.locator(".settings-section").locator("input, select, textarea").first()).toBeVisible();
    await check(`/settings ${await section.textContent()}`);
  }
  // The values are shown.
  await page.getByRole("tab", { name: "Bot" }).click();
  await expect(page.getByTestId("settings-nickname")).not.toHaveValue("");
  await expect(page.getByTestId("settings-apply")).toHaveCount(0);
  await shot(page, "viewer-settings");
  await context.close();
});

// What a new operator meets in the console's frame (issue 27, 22): the language of a Chinese browser,
// the keyboard's way in (skip link, a focus ring that shows everywhere, dark and light), no 404 for
// the icon, no glyph the fonts lack, the login page naming where this server keeps the token, no
// English left in the Chinese pages, and on the tools page a switch that says what it was set to, a
// run that sends no empty required field and MCP tools listed under their own server.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { everythingStdioConfig, freePort } from "../tests/support/mcp-servers";
import { BIG_SESSION, E2E_BASE } from "./support/env";
import { expect, shot, test, type Api } from "./support/fixtures";

const row = (page: Page, tool: string) => page.locator(`[data-testid="tool-row"][data-tool="${tool}"]`);

/**
 * A real stdio MCP server (server-everything) added through the API. Not server-memory: the manager
 * keeps a tool name with the server that had it first, and e2e/sources.spec.ts expects memory's names
 * unrenamed.
 */
async function addEverythingServer(api: Api, name: string): Promise<void> {
  const res = await api.ctx.post("/api/mcp-servers", {
    data: { server: everythingStdioConfig(name), reason: "e2e: console shell" },
  });
  expect(res.ok(), await res.text()).toBe(true);
}

async function removeMcpServer(api: Api, name: string): Promise<void> {
  const list = (await (await api.ctx.get("/api/mcp-servers")).json()) as {
    servers: { name: string; version: number }[];
  };
  const server = list.servers.find((s) => s.name === name);
  if (server)
    await api.ctx.delete(`/api/mcp-servers/${name}`, { data: { version: server.version, reason: "e2e: clean up" } });
}

test.describe("the language follows the browser until the operator chooses", () => {
  // A Chinese operator's browser: its language, and a time zone that is not the server's.
  test.use({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });

  test("a Chinese browser gets Chinese from the first paint; a choice made is kept", async ({ page, context }) => {
    await context.clearCookies({ name: "maisaka_locale" });
    const first = await page.goto("/");
    // Server-rendered in Chinese (from Accept-Language), before any script ran.
    expect(await first!.text()).toContain('<html lang="zh-CN"');
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByRole("navigation", { name: "主导航" }).getByRole("link", { name: "会话" })).toBeVisible();
    // Following the browser is not a choice: nothing stored.
    expect((await context.cookies()).some((c) => c.name === "maisaka_locale")).toBe(false);

    // The operator chooses English: kept over the browser's language.
    await page.getByTestId("locale-switch").selectOption("en");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await page.reload();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" })).toBeVisible();
    // Without the cookie the choice in localStorage still wins over the browser.
    await context.clearCookies({ name: "maisaka_locale" });
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await page.evaluate(() => window.localStorage.removeItem("maisaka.locale"));
  });
});

test.describe("an English browser", () => {
  test.use({ locale: "en-US" });

  test("gets English", async ({ page, context }) => {
    await context.clearCookies({ name: "maisaka_locale" });
    const first = await page.goto("/");
    expect(await first!.text()).toContain('<html lang="en"');
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" })).toBeVisible();
  });
});

test("a skip link is the first stop of the keyboard and moves it to the page", async ({ page }) => {
  await page.goto("/tools");
  await expect(page.getByTestId("tool-row").first()).toBeVisible();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.locator("main")).toBeFocused();
  // The next Tab goes into the page, not back to the header.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true);
});

/** The focused element's ring: drawn, 2 px or more, not cut off by a clipping parent, 3:1 against what is behind it. */
async function ringProblem(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return "nothing focused";
    // Focus inside a field's own parts (a date field's picker button): the browser rings those itself.
    if (!el.matches(":focus")) return null;
    const label = `${el.tagName} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 30)}"`;
    const style = getComputedStyle(el);
    const width = parseFloat(style.outlineWidth);
    if (style.outlineStyle === "none" || width < 2)
      return `${label}: no ring (${style.outlineStyle} ${style.outlineWidth})`;
    const offset = parseFloat(style.outlineOffset);
    const r = el.getBoundingClientRect();
    const grow = offset + width;
    const ring = { left: r.left - grow, top: r.top - grow, right: r.right + grow, bottom: r.bottom + grow };
    for (let p = el.parentElement; p; p = p.parentElement) {
      const ps = getComputedStyle(p);
      if (ps.overflowX === "visible" && ps.overflowY === "visible") continue;
      const pr = p.getBoundingClientRect();
      if (
        ring.left < pr.left - 0.5 ||
        ring.top < pr.top - 0.5 ||
        ring.right > pr.right + 0.5 ||
        ring.bottom > pr.bottom + 0.5
      )
        return `${label}: ring cut off by ${p.tagName}.${p.className}`;
    }
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r8, g8, b8]: number[]) => {
      const [R, G, B] = [r8, g8, b8].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    // Outside the element (offset ≥ 0) the ring lies on its parents' background, inside on its own.
    let behind = "rgb(255, 255, 255)";
    for (let p: HTMLElement | null = offset >= 0 ? el.parentElement : el; p; p = p.parentElement) {
      const bg = getComputedStyle(p).backgroundColor;
      const parts = rgb(bg);
      if (parts.length === 3 || (parts.length === 4 && parts[3] > 0.5)) {
        behind = bg;
        break;
      }
    }
    const [a, b] = [luminance(rgb(style.outlineColor)), luminance(rgb(behind))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    return ratio < 3 ? `${label}: ring ${style.outlineColor} on ${behind} is ${ratio.toFixed(2)}:1` : null;
  });
}

for (const theme of ["light", "dark"] as const) {
  for (const width of [1440, 390]) {
    test(`every keyboard stop shows a clear ring (${theme}, ${width} px)`, async ({ page, context }) => {
      await context.addCookies([{ name: "maisaka_theme", value: theme, url: E2E_BASE }]);
      await page.setViewportSize({ width, height: 900 });
      for (const path of ["/tools", "/settings", "/data"]) {
        await page.goto(path);
        await page.waitForLoadState("networkidle");
        await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
        let stops = 0;
        for (; stops < 30; stops++) {
          await page.keyboard.press("Tab");
          const problem = await ringProblem(page);
          // Past the last stop the keyboard leaves the page.
          if (problem === "nothing focused" && stops > 5) break;
          expect(problem, `${path}, stop ${stops + 1}`).toBeNull();
        }
        expect(stops).toBeGreaterThan(5);
      }
    });
  }
}

test("no request of a page answers 404, the icon included", async ({ page }) => {
  const missing: string[] = [];
  page.on("response", (r) => {
    if (r.status() === 404) missing.push(r.url());
  });
  for (const p of ["/", "/tools", "/settings", "/login"]) {
    await page.goto(p);
    await page.waitForLoadState("networkidle");
  }
  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  const answer = await page.request.get(icon!);
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-type"]).toContain("image/");
  expect(missing).toEqual([]);
});

/** Characters in these elements that no installed font has (drawn as the same box as an unassigned code point). */
async function tofu(elements: Locator): Promise<string[]> {
  return elements.evaluateAll((els) => {
    const canvas = document.createElement("canvas");
    canvas.width = 48;
    canvas.height = 48;
    const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
    const out = new Set<string>();
    for (const el of els) {
      const font = getComputedStyle(el).fontFamily;
      const draw = (ch: string) => {
        ctx.clearRect(0, 0, 48, 48);
        ctx.font = `32px ${font}`;
        ctx.fillText(ch, 4, 36);
        return ctx.getImageData(0, 0, 48, 48).data.join(",");
      };
      const box = draw("\u0378");
      // Latin, and CJK (this machine has no Chinese font; operators' machines do): the symbols are the question.
      for (const ch of new Set(el.textContent ?? ""))
        if (/[^\u0020-\u024f\u2e80-\u9fff\uff00-\uffef\s]/u.test(ch) && draw(ch) === box) out.add(ch);
    }
    return [...out];
  });
}

test("waiting messages and the header use no glyph the fonts lack", async ({ page, api }) => {
  const res = await api.ctx.post("/api/sessions", { data: { name: "Glyphs e2e", isGroupChat: false } });
  const id = ((await res.json()) as { id: string }).id;
  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  await api.send(id, "one message, below the private threshold", { userName: "Ada" });
  const badge = page.getByTestId("pending-reason");
  await expect(badge).toBeVisible();
  expect(await tofu(badge)).toEqual([]);
  expect(await tofu(page.locator("header.nav, header.nav *"))).toEqual([]);
  expect(await tofu(page.locator("main *"))).toEqual([]);
});

test("the login page says where this server's token is, and never the token", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: E2E_BASE });
  const page = await context.newPage();
  await page.goto("/login");
  const help = page.locator(".login-card p.muted").first();
  // The e2e server gets its token from the environment: it says so, and names no file.
  await expect(help).toContainText("MAISAKA_ADMIN_TOKEN");
  await expect(help).not.toContainText("data/admin-token");
  await context.close();
});

test("a server whose data folder moved names the token file where it is", async ({ browser }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "maisaka-moved-"));
  const dataDir = path.join(dir, "elsewhere");
  mkdirSync(dataDir);
  const config = path.join(dir, "maisaka.config.json");
  writeFileSync(config, "{}");
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    NODE_ENV: "production",
    MAISAKA_DATA_DIR: dataDir,
    DATABASE_URL: `file:${path.join(dataDir, "moved.db")}`,
    MAISAKA_CONFIG: config,
    MAISAKA_JOURNAL_DIR: "off",
  };
  delete env.MAISAKA_ADMIN_TOKEN;
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  let server: ChildProcess | null = null;
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  try {
    server = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], { env, stdio: "ignore" });
    await expect
      .poll(async () => (await context.request.get("/api/health").catch(() => null))?.status() ?? 0, {
        timeout: 120_000,
      })
      .toBe(200);
    const page = await context.newPage();
    await page.goto("/login");
    const help = page.locator(".login-card p.muted").first();
    await expect(help).toContainText(path.join(dataDir, "admin-token"));
    await expect(help).not.toContainText("data/admin-token");
    const hint = (await (await context.request.get("/api/auth/hint")).json()) as Record<string, unknown>;
    expect(hint).toEqual({ operatorToken: { from: "file", path: path.join(dataDir, "admin-token") } });
    await shot(page, "login-moved-data");
  } finally {
    await context.close();
    if (server?.pid) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test.describe("the Chinese pages", () => {
  // A Chinese operator's browser: its language, and a time zone that is not the server's.
  test.use({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });

  test("speak no English left over: states, kinds, placements, timings, end reasons", async ({ page, api }) => {
    test.setTimeout(120_000);
    // An MCP server, so its state shows; a session with finished cycles.
    await addEverythingServer(api, "zh-everything");
    const id = await api.createSession("中文页面");
    await api.send(id, "你好", { atBot: true });
    await api.waitIdle(id);
    try {
      const leftovers =
        /\b(builtin|ready|timing|visible|deferred|connected|Time|timing_no_action|timingGate|toolCalls)\b/;
      for (const p of [
        "/tools",
        "/sources",
        "/analytics",
        "/usage",
        "/search",
        `/sessions/${id}`,
        `/sessions/${BIG_SESSION}`,
      ]) {
        await page.goto(p);
        await page.waitForLoadState("networkidle");
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
        if (p === "/sources")
          await expect(page.locator('[data-testid="mcp-server"][data-name="zh-everything"]')).toHaveAttribute(
            "data-state",
            "connected",
          );
        // What is shown, tool names and ids aside (they are names, not words).
        const words = await page.evaluate(() => {
          // Tool descriptions are the tools' own text for the model, not the console's.
          const skip = (el: Element | null) => el?.closest(".mono, code, .tool-name, .provider-name, .tool-desc");
          const out: string[] = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode())
            if (!skip(n.parentElement) && n.parentElement?.checkVisibility()) out.push(n.textContent ?? "");
          return out.join("\n");
        });
        expect(words.match(leftovers)?.[0] ?? null, p).toBeNull();
      }
    } finally {
      await removeMcpServer(api, "zh-everything");
    }
  });
});

for (const locale of ["en", "zh-CN"] as const) {
  test(`every setting shown has a human label and a line of help (${locale})`, async ({ page, context }) => {
    await context.addCookies([{ name: "maisaka_locale", value: locale, url: E2E_BASE }]);
    await page.goto("/settings");
    const section = page.locator(".settings-section");
    for (const tab of await page.getByRole("tablist").first().getByRole("tab").all()) {
      await tab.click();
      await expect(section.locator("input, select, textarea").first()).toBeVisible();
      // A talk-value range too, so its fields are checked.
      const add = page.getByRole("button", { name: locale === "en" ? "Add a time range" : "添加时段" });
      if ((await add.count()) > 0 && (await page.getByTestId("talk-rule").count()) === 0) await add.click();
      await expect(section.locator('[data-help="missing"]')).toHaveCount(0);
      const fields = section.locator("input, select, textarea");
      expect(await fields.count()).toBeGreaterThan(0);
      for (const field of await fields.all()) {
        const key = (await field.evaluate((el) => el.closest("[data-field]")?.getAttribute("data-field") ?? "")) || "";
        const rawKey = key.split(".").pop() ?? "";
        const name = await field.evaluate((el) => {
          const labelled = (el as HTMLInputElement).labels?.[0]?.textContent ?? el.getAttribute("aria-label") ?? "";
          return labelled.trim();
        });
        expect(name, `a label for ${key}`).not.toBe("");
        if (rawKey && !/^\d+$/.test(rawKey)) expect(name, `${key} is named, not keyed`).not.toBe(rawKey);
        await expect(field, `help for ${key || name}`).toHaveAccessibleDescription(/\S/);
      }
    }
    await shot(page, `settings-help-${locale}`);
  });
}

test("a switch turned off says off, and stays off while the change is saved", async ({ page }) => {
  await page.goto("/tools");
  const tool = row(page, "roll_dice");
  const toggle = tool.getByRole("switch");
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await toggle.click();
  // Being confirmed: the switch and its words agree.
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await expect(tool.locator(".tool-switch")).toHaveText("off");
  // The save is held until the switch was looked at.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/tools/roll_dice", async (route) => {
    if (route.request().method() === "PATCH") await held;
    await route.continue();
  });
  await tool.getByLabel("Reason").fill("e2e: switch state");
  await tool.getByRole("button", { name: "Disable" }).click();
  await expect(tool.getByTestId("toggle-ack")).toHaveAttribute("data-phase", "sending");
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await expect(tool.locator(".tool-switch")).toHaveText("off");
  release();
  await expect(tool).toHaveAttribute("data-enabled", "false");
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await page.unroute("**/api/tools/roll_dice");

  // And back on, for the other tests.
  await toggle.click();
  await tool.getByLabel("Reason").fill("e2e: switch state back");
  await tool.getByRole("button", { name: "Enable" }).click();
  await expect(tool).toHaveAttribute("data-enabled", "true");
  await expect(tool.locator(".tool-switch")).toHaveText("on");
});

test("Run sends nothing while a required field is empty, and names it", async ({ page }) => {
  await page.goto("/tools");
  const search = row(page, "tool_search");
  await search.getByTestId("run-tool").click();
  const panel = search.getByTestId("tool-run");
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/tools/tool_search/invoke")) sent.push(r.url());
  });
  await expect(panel.getByLabel(/^query/)).toHaveValue("");
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.locator('[data-field="query"]')).toHaveAttribute("aria-invalid", "true");
  await expect(panel.getByTestId("field-error")).toContainText("is required");
  await expect(panel.getByTestId("run-result")).toHaveCount(0);
  // Filled in, it runs.
  await panel.getByLabel(/^query/).fill("dice");
  await panel.getByRole("button", { name: "Run tool_search" }).click();
  await expect(panel.getByTestId("run-result")).toBeVisible();
  expect(sent).toHaveLength(1);
});

test("MCP tools are listed under their own server, each with its state", async ({ page, api }) => {
  const names = ["e2e-tools-a", "e2e-tools-b"];
  try {
    for (const name of names) await addEverythingServer(api, name);
    await page.goto("/tools");
    for (const name of names) {
      const group = page.locator(`section.provider[data-provider="${name}"][data-provider-type="mcp"]`);
      await expect(group.getByTestId("tool-row").first()).toBeVisible();
      await expect(group.locator(".prov-state")).toHaveAttribute("data-state", "ready");
    }
    await expect(page.locator('section.provider[data-provider="mcp"]')).toHaveCount(0);
    // The provider filter names the servers too.
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: names[1] });
    await expect(page.locator("section.provider")).toHaveCount(1);
    await expect(page.locator(`section.provider[data-provider="${names[1]}"]`)).toBeVisible();
    await shot(page, "tools-mcp-groups");
  } finally {
    for (const name of names) await removeMcpServer(api, name);
  }
});

// The page policy in a real browser on the production build: every script Next renders carries the
// request's nonce, nothing the dashboard does trips the CSP (pages, live socket, icons), and a page
// of another origin cannot frame the dashboard while the operator is logged in.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { E2E_BASE } from "./support/env";
import { expect, test } from "./support/fixtures";

function cspViolations(page: import("@playwright/test").Page): string[] {
  const found: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) found.push(m.text());
  });
  return found;
}

test("pages carry a nonce CSP that every rendered script satisfies, and nothing violates it", async ({ page, api }) => {
  const violations = cspViolations(page);
  for (const route of ["/", "/tools", "/login"]) {
    const res = await page.request.get(route);
    const csp = res.headers()["content-security-policy"] ?? "";
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce, `${route}: ${csp}`).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("img-src 'self' data:");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(res.headers()["referrer-policy"]).toBe("no-referrer");
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length, route).toBeGreaterThan(0);
    for (const tag of scripts) {
      // External scripts from this origin are allowed by 'self'; inline ones need the nonce.
      if (!/\ssrc="\/_next\//.test(tag)) expect(tag, route).toContain(`nonce="${nonce}"`);
    }
  }

  // A live page: hydrated, the socket connected (connect-src 'self'), events arriving.
  const id = await api.createSession("CSP live check");
  await page.goto("/");
  await expect(page.locator(`tr[data-session-id="${id}"]`)).toBeVisible();
  await api.send(id, "麦麦，CSP 还好吗？", { atBot: true });
  await expect(page.locator(`tr[data-session-id="${id}"]`)).not.toHaveAttribute("data-last-seq", "0");
  await page.goto("/tools");
  await expect(page.getByRole("heading", { name: "Tools" })).toBeVisible();
  await expect(page.locator('[data-testid="tool-row"][data-tool="roll_dice"] img.tool-icon')).toBeVisible();
  await page.goto(`/sessions/${id}`);
  await expect(page.getByTestId("timeline")).toBeVisible();
  expect(violations).toEqual([]);
});

test("a page on another origin cannot frame the dashboard", async ({ page }) => {
  const attacker: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>attacker</title><iframe id="victim" src="${E2E_BASE}/tools"></iframe>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  try {
    const violations = cspViolations(page);
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    await expect.poll(() => violations.some((v) => v.includes("frame-ancestors"))).toBe(true);
    await expect(page.frameLocator("#victim").getByRole("heading", { name: "Tools" })).toHaveCount(0);
  } finally {
    attacker.closeAllConnections();
    attacker.close();
  }
});

test("the overview pages through many sessions with Load more", async ({ page, api }) => {
  const ids: string[] = [];
  for (let i = 0; i < 55; i++) ids.push(await api.createSession(`Paged ${i}`));
  await page.goto("/");
  // Newest first: the last one created is on the first page, the first one only after Load more.
  await expect(page.locator(`tr[data-session-id="${ids[54]}"]`)).toBeVisible();
  await expect(page.locator(`tr[data-session-id="${ids[0]}"]`)).toHaveCount(0);
  await page.getByTestId("sessions-more").click();
  await expect(page.locator(`tr[data-session-id="${ids[0]}"]`)).toBeVisible();
  // The search asks the server.
  await page.getByLabel("Filter sessions").fill("Paged 7");
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(page.locator(`tr[data-session-id="${ids[7]}"]`)).toBeVisible();
});

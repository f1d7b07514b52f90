// Login with the operator token, the SIMULATED badge, and the way back to the page asked for.
import { expect, test } from "@playwright/test";
import { E2E_BASE, E2E_TOKEN } from "./support/env";
import { shot } from "./support/fixtures";

test("an anonymous visitor is sent to /login and lands where they wanted after logging in", async ({ page }) => {
  await page.goto("/tools");
  await expect(page).toHaveURL(/\/login\?next=%2Ftools/);
  await expect(page.getByRole("heading", { name: "Operator login" })).toBeVisible();
  await shot(page, "login");

  await page.getByLabel("Token").fill("not-the-token-at-all");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.locator(".form-error")).toContainText("not the operator token");
  await shot(page, "login-error");

  await page.getByLabel("Token").fill(E2E_TOKEN);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/tools$/);
  await expect(page.getByRole("heading", { name: "Tools" })).toBeVisible();
  await expect(page.getByTestId("simulated-badge")).toHaveText("SIMULATED");

  // The cookie is httpOnly: page scripts cannot read the credential.
  expect(await page.evaluate(() => document.cookie)).not.toContain("maisaka_operator");
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login\?next=%2F/);
});

test("?next= never leads to another origin, however it is spelled", async ({ page }) => {
  // As the probe sent them (a tab, a newline), and their relatives: each would be another host to the browser.
  for (const next of [
    "/%09/evil.example",
    "/%0A/evil.example",
    "/%5Cevil.example",
    "/.//evil.example",
    "//evil.example",
  ]) {
    await page.context().clearCookies();
    await page.goto(`/login?next=${next}`);
    await page.getByLabel("Token").fill(E2E_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page, next).toHaveURL(`${E2E_BASE}/`);
  }
});

// Roles in the UI and the API: an admin creates a viewer on the accounts page (its token shown once);
// the viewer logs in with name and password, sees its name and role, finds every tool switch
// disabled with the reason, no chat box, and its API PATCH answers 403 with nothing changed.
import { expect, shot, test } from "./support/fixtures";
import { E2E_BASE } from "./support/env";

const TOOL = "query_jargon";

test("a viewer sees no change controls and the API refuses its changes", async ({ page, api, browser }) => {
  const name = `viewer-${Date.now()}`;
  const password = "viewer e2e password";
  const id = await api.createSession("Roles e2e");

  // The admin (the page fixture's login) creates the viewer in the UI.
  await page.goto("/accounts");
  await expect(page.getByRole("heading", { name: "Accounts" })).toBeVisible();
  await page.getByLabel("New account name").fill(name);
  await page.getByLabel("New account role").selectOption("viewer");
  await page.getByLabel("New account password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  const issued = page.getByTestId("issued-token");
  await expect(issued).toContainText(name);
  await expect(issued.getByRole("button", { name: "Copy token" })).toBeVisible();
  const token = (await issued.locator("code").textContent())?.trim() ?? "";
  expect(token).toMatch(/^msk_/);
  await expect(page.locator(`tr[data-account="${name}"]`)).toContainText("viewer");
  await shot(page, "accounts");

  // The viewer logs in with name and password in a browser of its own.
  const context = await browser.newContext({ baseURL: E2E_BASE });
  const viewer = await context.newPage();
  await viewer.goto("/login?next=%2Ftools");
  await viewer.getByRole("button", { name: "With name and password" }).click();
  await viewer.getByLabel("Name").fill(name);
  await viewer.getByLabel("Password").fill(password);
  await viewer.getByRole("button", { name: "Log in" }).click();
  await expect(viewer).toHaveURL(/\/tools$/);
  await expect(viewer.getByTestId("nav-account")).toContainText(name);
  await expect(viewer.getByTestId("nav-account")).toContainText("viewer");
  await expect(viewer.getByRole("link", { name: "Accounts" })).toHaveCount(0);

  const row = viewer.locator(`[data-testid="tool-row"][data-tool="${TOOL}"]`);
  await expect(row).toHaveAttribute("data-enabled", "true");
  const switches = viewer.getByRole("switch");
  expect(await switches.count()).toBeGreaterThan(0);
  for (const s of await switches.all()) await expect(s).toBeDisabled();
  await expect(row.locator(".tool-switch")).toHaveAttribute("title", /read-only/);
  await shot(viewer, "tools-viewer");

  // No chat box or bot send box in a session either.
  // (Once the nav shows the account, the page knows the role: the boxes' absence is its decision.)
  await viewer.goto(`/sessions/${id}`);
  await expect(viewer.getByTestId("nav-account")).toContainText("viewer");
  await expect(viewer.locator("form.chatbox")).toHaveCount(0);
  await expect(viewer.getByTestId("bot-send")).toHaveCount(0);

  // The API is the real guard: the viewer's own cookie and its token both get 403.
  const patch = await viewer.request.patch(`/api/tools/${TOOL}`, { data: { enabled: false, reason: "viewer e2e" } });
  expect(patch.status()).toBe(403);
  const byToken = await viewer.request.patch(`/api/tools/${TOOL}`, {
    data: { enabled: false, reason: "viewer e2e" },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(byToken.status()).toBe(403);
  const tools = (await (await api.ctx.get("/api/tools")).json()) as { tools: { name: string; enabled: boolean }[] };
  expect(tools.tools.find((t) => t.name === TOOL)?.enabled).toBe(true);
  await context.close();

  // The audit page names the admin who created the account.
  await page.goto("/audit");
  await page.getByLabel("Action").fill("account.create");
  await expect(page.locator('tr[data-action="account.create"]').first()).toContainText("admin");
  await shot(page, "audit");
});

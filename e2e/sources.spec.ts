// Sources live: an MCP server added on /sources (a real stdio server, server-memory, with a write-only
// secret) connects, its tools appear in the tool catalog and in the next cycle's planner request
// (MCP tools are deferred: offered through tool_search, listed as such in "what the model saw"); a
// definition that does not start shows its error while the other server keeps working.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { E2E_BASE } from "./support/env";
import { expect, shot, test } from "./support/fixtures";
import { newestReplyModelInput } from "./support/model-input";

const require = createRequire(import.meta.url);
const memoryPackage = require.resolve("@modelcontextprotocol/server-memory/package.json");
const memoryBin = join(
  dirname(memoryPackage),
  (require(memoryPackage) as { bin: Record<string, string> }).bin["mcp-server-memory"],
);
const SECRET = "e2e-secret-value-never-shown";
const TOOL = "read_graph";

async function addServer(page: import("@playwright/test").Page, name: string, command: string, args: string[]) {
  await page.getByTestId("mcp-add").click();
  const form = page.getByTestId("mcp-form");
  await form.locator('input[name="name"]').fill(name);
  await form.locator('input[name="command"]').fill(command);
  await form.locator('textarea[name="args"]').fill(args.join("\n"));
  await form.locator('textarea[name="newSecrets"]').fill(`E2E_API_KEY=${SECRET}`);
  await form.locator('input[name="reason"]').fill(`e2e: add ${name}`);
  await form.getByTestId("mcp-save").click();
  await expect(form).toHaveCount(0);
}

test("an MCP server added live: connected, its tools in the catalog and offered at the next cycle", async ({
  page,
  api,
}) => {
  await page.goto("/sources");
  await addServer(page, "e2e-memory", process.execPath, [memoryBin]);
  const card = page.locator('[data-testid="mcp-server"][data-name="e2e-memory"]');
  await expect(card).toHaveAttribute("data-state", "connected");
  await card
    .getByText(/\d+ tools/)
    .first()
    .click();
  await expect(card.getByTestId("mcp-tools")).toContainText(TOOL);
  // The secret shows as set, never its value.
  await expect(card).toContainText("E2E_API_KEY ●●●");
  expect(await page.content()).not.toContain(SECRET);
  await shot(page, "sources-mcp-added");

  // A definition that does not start: a clear error, the other server untouched.
  await addServer(page, "e2e-broken", "/nonexistent/maisaka-e2e-server", []);
  const broken = page.locator('[data-testid="mcp-server"][data-name="e2e-broken"]');
  await expect(broken).toHaveAttribute("data-state", "failed");
  await expect(broken.getByTestId("mcp-error")).toContainText(/ENOENT|not found|no such file/i);
  await expect(card).toHaveAttribute("data-state", "connected");
  await shot(page, "sources-mcp-broken");

  // The tool catalog lists the new tool.
  await page.goto("/tools");
  await expect(page.locator(`[data-testid="tool-row"][data-tool="${TOOL}"]`)).toBeVisible();

  // The next planner request offers it (deferred: found through tool_search).
  const id = await api.createSession("Sources e2e");
  await api.send(id, "你知道些什么？", { userName: "Dora", atBot: true });
  await api.waitIdle(id);
  const panel = await newestReplyModelInput(page, id);
  await expect(panel.getByTestId("withheld-tools").locator("li").filter({ hasText: TOOL })).toContainText(/deferred/i);

  // Removed again (with a reason): its tools leave the catalog.
  await page.goto("/sources");
  for (const name of ["e2e-broken", "e2e-memory"]) {
    const server = page.locator(`[data-testid="mcp-server"][data-name="${name}"]`);
    await server.getByTestId("mcp-reason").fill("e2e: clean up");
    await server.getByTestId("mcp-remove").click();
    await server.getByRole("button", { name: "Remove this server?" }).click();
    await expect(server).toHaveCount(0);
  }
  await page.goto("/tools");
  await expect(page.locator(`[data-testid="tool-row"][data-tool="${TOOL}"]`)).toHaveCount(0);
});

test("an operator enables, disables and restarts an MCP server; only an admin sees its stderr and edits it", async ({
  page,
  api,
  browser,
}) => {
  const name = `op-sources-${Date.now()}`;
  const password = "operator e2e password";
  const created = await api.ctx.post("/api/accounts", { data: { name, role: "operator", password } });
  expect(created.status(), await created.text()).toBe(201);
  // A server that writes to stderr before it serves.
  const server = {
    name: "e2e-talker",
    transport: "stdio",
    command: process.execPath,
    args: [
      "--input-type=module",
      "-e",
      `console.error("talker stderr line"); await import(${JSON.stringify(pathToFileURL(memoryBin).href)});`,
    ],
    env: { MEMORY_FILE_PATH: "/dev/null" },
  };
  const added = await api.ctx.post("/api/mcp-servers", { data: { server, reason: "e2e: operator test" } });
  expect(added.status(), await added.text()).toBe(201);

  const context = await browser.newContext({ baseURL: E2E_BASE });
  const operator = await context.newPage();
  await operator.goto("/login?next=%2Fsources");
  await operator.getByRole("button", { name: "With name and password" }).click();
  await operator.getByLabel("Name").fill(name);
  await operator.getByLabel("Password").fill(password);
  await operator.getByRole("button", { name: "Log in" }).click();
  await expect(operator).toHaveURL(/\/sources$/);
  // Once the nav shows the account, the page knows the role: what is missing is its decision.
  await expect(operator.getByTestId("nav-account")).toContainText("operator");
  const card = operator.locator('[data-testid="mcp-server"][data-name="e2e-talker"]');
  await expect(card).toHaveAttribute("data-state", "connected");
  await expect(operator.getByTestId("mcp-add")).toHaveCount(0);
  await expect(card.getByTestId("mcp-edit")).toHaveCount(0);
  await expect(card.getByTestId("mcp-remove")).toHaveCount(0);
  await expect(card.getByTestId("mcp-stderr")).toHaveCount(0);
  await expect(operator.getByText("Only admins define MCP servers")).toBeVisible();
  await card.getByTestId("mcp-reason").fill("e2e: switch off");
  await card.getByTestId("mcp-toggle").click();
  await expect(card).toHaveAttribute("data-state", "disabled");
  await card.getByTestId("mcp-reason").fill("e2e: switch on");
  await card.getByTestId("mcp-toggle").click();
  await expect(card).toHaveAttribute("data-state", "connected");
  await shot(operator, "sources-operator");
  await context.close();

  // The admin sees the stderr and may edit and remove.
  await page.goto("/sources");
  const mine = page.locator('[data-testid="mcp-server"][data-name="e2e-talker"]');
  await expect(mine.getByTestId("mcp-edit")).toBeVisible();
  await mine.getByText("stderr (last lines)").click();
  await expect(mine.getByTestId("mcp-stderr")).toContainText("talker stderr line");
  await mine.getByTestId("mcp-reason").fill("e2e: clean up");
  await mine.getByTestId("mcp-remove").click();
  await mine.getByRole("button", { name: "Remove this server?" }).click();
  await expect(mine).toHaveCount(0);
});

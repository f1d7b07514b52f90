// Re-runs and what-if forks from the replay page, against the real POST /api/sessions/:id/rerun: a
// re-run opens the new session's replay with its banner (reproduced exactly), the original lists it as a
// branch; a fork from a cycle with a tool switched off and a talk value carries its edits and settings
// to the server and its banner; a timing-gate prompt override is shown as the first divergence, linked to
// /diff and to the original at that cycle; Escape closes the dialog; a viewer sees none of these controls.
import type { Page } from "@playwright/test";
import { expect, shot, test, type Api } from "./support/fixtures";
import { E2E_BASE } from "./support/env";

async function recordedSession(api: Api): Promise<{ id: string; cycles: string[] }> {
  const id = await api.createSession("Rerun e2e");
  // Two plain messages (a cycle that asks the timing gate), then an @ of the bot (one that replies).
  await api.send(id, "大家周末有什么安排", { userName: "Alice" });
  await api.send(id, "我打算去爬山", { userName: "Bob" });
  await api.waitIdle(id);
  await api.send(id, "麦麦你呢？", { userName: "Carol", atBot: true });
  await api.waitIdle(id);
  const cycles = (await api.events(id)).filter((e) => e.type === "cycle.end").map((e) => String(e.data.cycleId));
  expect(cycles.length).toBeGreaterThan(0);
  return { id, cycles };
}

async function openDialog(page: Page, open: () => Promise<void>) {
  await open();
  const dialog = page.getByTestId("rerun-dialog");
  await expect(dialog).toBeVisible();
  return dialog;
}

test("re-run a session, then fork it from a cycle with a tool off", async ({ page, api }) => {
  const { id, cycles } = await recordedSession(api);
  await page.goto(`/sessions/${encodeURIComponent(id)}/replay`);
  await expect(page.getByTestId("replay")).toBeVisible();

  // Escape closes the dialog without running anything.
  let dialog = await openDialog(page, () => page.getByTestId("rerun-open").click());
  await expect(page.getByTestId("rerun-name")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  // A plain re-run: Enter in the name field submits; the new session's replay opens with its banner.
  await openDialog(page, () => page.getByTestId("rerun-open").click());
  await page.getByTestId("rerun-name").fill("e2e re-run");
  await page.getByTestId("rerun-name").press("Enter");
  // The banner is the new session's: this one has none.
  const banner = page.getByTestId("origin-banner");
  await expect(banner).toHaveAttribute("data-kind", "rerun", { timeout: 60_000 });
  await expect(banner.getByTestId("origin-link")).toHaveAttribute("href", `/sessions/${encodeURIComponent(id)}/replay`);
  await expect(banner.getByTestId("divergence-none")).toBeVisible();
  await expect(page.getByTestId("replay-title")).toContainText("e2e re-run");
  const rerunId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  await shot(page, "rerun-banner");

  // The original lists it as a branch.
  await page.goto(`/sessions/${encodeURIComponent(id)}/replay`);
  const branch = page.locator(`[data-testid="branch"][data-branch-id="${rerunId}"]`);
  await expect(branch).toHaveAttribute("data-kind", "rerun");
  await expect(branch).toContainText("reproduced exactly");

  // A fork from the last cycle: one tool off, another talk value.
  const cycle = cycles[cycles.length - 1];
  await page.goto(`/sessions/${encodeURIComponent(id)}/replay?cycle=${encodeURIComponent(cycle)}`);
  const card = page.locator(`[data-testid="replay-cycles"] [data-cycle-id="${cycle}"]`);
  dialog = await openDialog(page, () => card.getByTestId("fork-cycle").click());
  await page.getByTestId("add-edit-tool_off").click();
  const tool = dialog.getByTestId("edit-tool");
  // Submitting with the tool not picked names the missing field and sends nothing.
  await page.getByTestId("rerun-submit").click();
  await expect(dialog.getByTestId("rerun-problems")).toContainText("edits.0.toolName");
  const offered = await tool.locator("option").nth(1).getAttribute("value");
  expect(offered).toBeTruthy();
  await tool.selectOption(offered ?? "");
  await page.getByTestId("fork-talk-value").fill("0.5");
  await page.getByTestId("rerun-continue-with").selectOption("simulated");
  await page.getByTestId("rerun-name").fill("e2e fork");
  await shot(page, "fork-dialog");
  await page.getByTestId("rerun-submit").click();
  await expect(page.getByTestId("replay-title")).toContainText("e2e fork", { timeout: 60_000 });
  const forkBanner = page.getByTestId("origin-banner");
  await expect(forkBanner).toHaveAttribute("data-kind", "fork");
  await expect(forkBanner.getByTestId("origin-changes")).toContainText(`tool ${offered} off`);
  await expect(forkBanner.getByTestId("origin-changes")).toContainText("chat.talkValue = 0.5");
  const forkId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  const summary = (await (await api.ctx.get(`/api/sessions/${encodeURIComponent(forkId)}`)).json()) as {
    origin: { kind: string; fromCycle: string; edits: unknown[]; continueWith: string; divergence?: unknown };
  };
  expect(summary.origin).toMatchObject({
    kind: "fork",
    fromCycle: cycle,
    edits: [{ kind: "tool_off", toolName: offered }],
    continueWith: "simulated",
  });
  // A divergence links the diff of the two cycles and the original at that cycle.
  if (summary.origin.divergence) {
    const href = (await forkBanner.getByTestId("divergence-diff").getAttribute("href")) ?? "";
    const diff = new URL(href, E2E_BASE);
    expect(diff.pathname).toBe("/diff");
    expect(diff.searchParams.get("a")?.startsWith(id)).toBe(true);
    expect(diff.searchParams.get("b")?.startsWith(forkId)).toBe(true);
    await expect(forkBanner.getByTestId("divergence-expected")).toBeVisible();
  } else await expect(forkBanner.getByTestId("divergence-none")).toBeVisible();
  await shot(page, "fork-banner");

  // Both are branches of the original, and the overview marks them.
  await page.goto(`/sessions/${encodeURIComponent(id)}/replay`);
  await expect(page.getByTestId("branch")).toHaveCount(2);
  await page.goto("/");
  await expect(page.locator(`tr[data-session-id="${forkId}"]`).getByTestId("derived-badge")).toHaveText("fork");
});

test("a viewer sees no re-run or fork control", async ({ api, browser }) => {
  const { id, cycles } = await recordedSession(api);
  const name = `rerun-viewer-${Date.now()}`;
  const password = "rerun viewer password";
  const created = await api.ctx.post("/api/accounts", { data: { name, role: "viewer", password } });
  expect(created.status(), await created.text()).toBe(201);

  const context = await browser.newContext({ baseURL: E2E_BASE });
  const login = await context.request.post("/api/auth/login", { data: { username: name, password } });
  expect(login.ok(), await login.text()).toBe(true);
  const viewer = await context.newPage();
  await viewer.goto(`/sessions/${encodeURIComponent(id)}/replay?cycle=${encodeURIComponent(cycles[0])}`);
  await expect(viewer.getByTestId("nav-account")).toContainText("viewer");
  await expect(viewer.getByTestId("replay-cycles").getByTestId("cycle-card").first()).toBeVisible();
  await expect(viewer.getByTestId("rerun-open")).toHaveCount(0);
  await expect(viewer.getByTestId("fork-cycle")).toHaveCount(0);
  // The server is the guard.
  const refused = await viewer.request.post(`/api/sessions/${encodeURIComponent(id)}/rerun`, { data: {} });
  expect(refused.status()).toBe(403);
  await context.close();
});

test("a re-run with a timing-gate prompt override shows where it diverged, linked to the diff", async ({
  page,
  api,
}) => {
  const { id } = await recordedSession(api);
  const events = await api.events(id);
  const asked = events.find(
    (e) => e.type === "planner.finalized" && (e.data.timingGate as { request?: unknown } | null)?.request,
  );
  expect(asked, "the recording has a cycle that asked the timing gate").toBeTruthy();
  const gateCycle = String(asked?.data.cycleId);

  await page.goto(`/sessions/${encodeURIComponent(id)}/replay`);
  const dialog = await openDialog(page, () => page.getByTestId("rerun-open").click());
  await dialog.getByTestId("add-prompt").click();
  const prompt = dialog.getByTestId("fork-prompt");
  await prompt.getByLabel("Prompt template").selectOption("maisaka_timing_gate");
  // The override starts from the built-in template; replaced here.
  await expect(prompt.getByLabel("Override text")).not.toHaveValue("");
  await prompt.getByLabel("Override text").fill("Always stay silent: call no_action.");
  await page.getByTestId("rerun-name").fill("e2e gate override");
  // Ctrl+Enter submits from a text area.
  await prompt.getByLabel("Override text").press("Control+Enter");

  const banner = page.getByTestId("origin-banner");
  await expect(banner).toHaveAttribute("data-kind", "rerun", { timeout: 60_000 });
  await expect(banner.getByTestId("origin-changes")).toContainText("prompt maisaka_timing_gate overridden");
  const divergence = banner.getByTestId("divergence");
  await expect(divergence).toContainText("model request");
  await expect(divergence.getByTestId("divergence-path")).toContainText("messages[0].content");
  await expect(divergence.getByTestId("divergence-actual")).toContainText("Always stay silent");
  const rerunId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  const diff = new URL((await divergence.getByTestId("divergence-diff").getAttribute("href")) ?? "", E2E_BASE);
  expect(diff.pathname).toBe("/diff");
  expect(diff.searchParams.get("a")).toBe(`${id}:${gateCycle}`);
  expect(diff.searchParams.get("b")?.startsWith(`${rerunId}:`)).toBe(true);
  await shot(page, "rerun-divergence");

  // The two cycles' diff: the re-run's cycle kept what it asked the gate (nothing "(absent)" there),
  // and the first difference is the changed prompt.
  await page.goto(diff.pathname + diff.search);
  await expect(page.getByTestId("diff-verdict")).toContainText("What the timing gate saw");
  await expect(page.getByTestId("diff-verdict")).toContainText("Always stay silent");
  const gateInput = page.getByTestId("diff-section-gateContext");
  await expect(gateInput.getByTestId("diff-cell-b").first()).toBeVisible();
  await expect(gateInput.getByTestId("diff-cell-b").filter({ hasText: "(absent)" })).toHaveCount(0);
  await page.goBack();

  // The original opens at the diverging cycle.
  await divergence.getByTestId("divergence-original").click();
  await expect(page).toHaveURL(new RegExp(`/replay\\?cycle=${gateCycle}$`));
  await expect(page.locator(`[data-testid="replay-cycles"] [data-cycle-id="${gateCycle}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="branch"][data-branch-id="${rerunId}"]`)).toContainText("diverged at cycle");
});

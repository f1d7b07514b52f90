// The live view: a message sent from the chat box is answered, and the cycle card appears live
// with the gate decision, the planner, the tool call and the bot's reply; what the model saw is
// there, searchable; j/k move through cycles.
import { expect, shot, test, timelineState } from "./support/fixtures";

test("send a message and watch the cycle card appear live", async ({ page, api }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  await page.getByLabel("New session name").fill("Live e2e");
  await page.getByRole("button", { name: "Create session" }).click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
  const sessionId = decodeURIComponent(page.url().split("/").pop() ?? "");
  await expect(page.getByText("Nothing has happened in this session yet")).toBeVisible();
  await shot(page, "session-empty");

  await page.getByLabel("Your name in the chat").fill("Alice");
  await page.getByRole("button", { name: "@bot" }).click();
  await page.getByLabel("Message text").fill("你周末打算做什么？");
  await page.keyboard.press("Enter");

  const incoming = page.getByTestId("chat-message").filter({ hasText: "你周末打算做什么？" });
  await expect(incoming).toBeVisible();
  await expect(incoming).toContainText("Alice");
  await expect(incoming).toContainText("@bot");

  // The card that answered: gate decided "continue", the reply tool ran, and the bot said something.
  const card = page
    .getByTestId("cycle-card")
    .filter({ has: page.getByTestId("bot-reply") })
    .first();
  await expect(card).toBeVisible();
  await expect(card.getByTestId("gate-decision")).toHaveAttribute("data-action", "continue");
  await expect(card.locator('[data-tool="reply"]').first()).toContainText("✓");
  await expect(card.getByTestId("end-reason")).toBeVisible();
  const reply = (await card.getByTestId("bot-reply").first().innerText()).trim();
  expect(reply.length).toBeGreaterThan(0);
  await expect(page.getByTestId("chat-message").filter({ hasText: "bot" }).last()).toBeVisible();

  await api.waitIdle(sessionId);
  const ledger = await api.events(sessionId);
  await expect.poll(async () => (await timelineState(page)).lastSeq).toBe(ledger[ledger.length - 1].seq);
  await shot(page, "session-live");

  // What the model saw: the exact planner request, searchable.
  await card.getByRole("button", { name: /What the model saw/ }).click();
  const panel = card.getByRole("region", { name: "What the model saw" });
  await expect(panel.getByTestId("offered-tools").locator('[data-tool="reply"]')).toBeVisible();
  await expect(panel).toContainText("你周末打算做什么？");
  await panel.getByLabel("Search what the model saw").fill("周末打算");
  await expect(panel.locator("mark").first()).toHaveText("周末打算");
  await shot(page, "session-model-input");

  // j/k walk the cycles; the selected card is outlined.
  await page.locator("body").click({ position: { x: 5, y: 300 } });
  await page.keyboard.press("j");
  await expect(page.locator(".cycle-selected")).toHaveCount(1);
  const first = await page.locator(".cycle-selected").getAttribute("data-cycle-id");
  await page.keyboard.press("j");
  await expect(page.locator(".cycle-selected")).not.toHaveAttribute("data-cycle-id", first ?? "");
  await page.keyboard.press("k");
  await expect(page.locator(".cycle-selected")).toHaveAttribute("data-cycle-id", first ?? "");
  await expect(page.getByTestId("resume-follow")).toBeVisible();

  // The overview shows the session with its live stage and cycle count.
  await page.getByRole("link", { name: "Sessions" }).click();
  const row = page.locator(`tr[data-session-id="${sessionId}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("cycle-count")).not.toHaveText("0");
  await shot(page, "sessions-overview");
});

test("dark theme renders the live view", async ({ page, api }) => {
  const id = await api.createSession("Dark theme");
  await api.send(id, "晚上好", { userName: "Bob", atBot: true });
  await api.waitIdle(id);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`/sessions/${id}`);
  await expect(page.getByTestId("bot-reply").first()).toBeVisible();
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe("rgb(19, 20, 22)");
  await shot(page, "session-live-dark");
  // The toggle pins a theme regardless of the system: system → dark → light.
  await page.getByRole("button", { name: /^Theme/ }).click();
  await page.getByRole("button", { name: /^Theme/ }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(246, 246, 243)");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.getByRole("button", { name: /^Theme/ }).click();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /./);
});

test("one token total: the totals panel shows the session's, learning included, as the header does", async ({
  page,
  api,
}) => {
  // Named after its id: the header shows that once.
  const id = `totals-e2e-${Date.now().toString(36)}`;
  await api.createSession(id, id);
  // Eight messages make a learning batch: calls outside any cycle.
  for (let i = 1; i <= 9; i++)
    await api.send(id, `今天聊到第 ${i} 件事，yyds`, { userName: `U${i % 3}`, atBot: i === 9 });
  await api.waitIdle(id);
  const inCycles = (await api.events(id))
    .filter((e) => e.type === "cycle.end")
    .reduce((sum, e) => sum + Number((e.data.usage as { totalTokens?: number } | undefined)?.totalTokens ?? 0), 0);
  const session = async () => (await (await api.ctx.get(`/api/sessions/${id}`)).json()) as { totalTokens: number };
  // The session's total holds more than its cycles' (learning): the two used to disagree.
  await expect.poll(async () => (await session()).totalTokens).toBeGreaterThan(inCycles);
  const total = (await session()).totalTokens;

  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  await expect(page.getByTestId("session-usage")).toContainText(total.toLocaleString("en-US"));
  await expect(page.getByTestId("stats-tokens")).toHaveText(total.toLocaleString("en-US"));
  const head = (await page.locator(".page-head").innerText()).split(id).length - 1;
  expect(head, "the session id once in the header").toBe(1);
});

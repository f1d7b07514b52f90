// The bot's data page: a memory added in the UI shows in the list as text (hostile markup stays text)
// and is what query_memory finds in the next turn of a chat.
import { expect, shot, test } from "./support/fixtures";

test("add a memory in the UI, see it in the list, and query_memory finds it in the next turn", async ({
  page,
  api,
}) => {
  const marker = `e2e${Date.now().toString(36)}`;
  const content = `<img src=x onerror=alert(1)> 小红周末去 ${marker} 露营`;

  await page.goto("/data");
  await expect(page.getByTestId("data-tab-memories")).toBeVisible();
  await page.getByTestId("data-add").click();
  const form = page.getByTestId("data-form");
  await form.locator('textarea[name="content"]').fill(content);
  await form.locator('input[name="personName"]').fill("小红");
  await form.getByTestId("data-save").click();
  await expect(form).toHaveCount(0);

  await page.getByTestId("data-search").fill(marker);
  const row = page.getByTestId("data-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(content);
  await expect(row.locator("img")).toHaveCount(0);
  await shot(page, "data-memories");

  // The next turn of a chat: the planner's query_memory reads what the page wrote.
  const id = await api.createSession("Data e2e");
  await api.send(id, `还记得 ${marker} 吗`, { userName: "Carol", atBot: true });
  await api.waitIdle(id);
  const events = await api.events(id);
  const lookup = events.find((e) => e.type === "tool.execution" && e.data.toolName === "query_memory");
  expect(lookup, "a query_memory call in the session").toBeTruthy();
  expect(String(lookup?.data.result)).toContain(marker);
});

test("a stale edit shows the conflict with the current values", async ({ page, api }) => {
  const marker = `stale${Date.now().toString(36)}`;
  const created = await api.ctx.post("/api/memories", { data: { content: `${marker} first` } });
  expect(created.status()).toBe(201);
  const memory = (await created.json()) as { id: string; version: number };

  await page.goto("/data");
  await page.getByTestId("data-search").fill(marker);
  await page.getByTestId("data-row").getByRole("button", { name: "Edit" }).click();
  // Another operator saves first.
  const other = await api.ctx.patch(`/api/memories/${memory.id}`, {
    data: { content: `${marker} by someone else`, ifVersion: memory.version },
  });
  expect(other.status()).toBe(200);
  const form = page.getByTestId("data-form");
  await form.locator('textarea[name="content"]').fill(`${marker} mine`);
  await form.getByTestId("data-save").click();
  const conflict = form.getByTestId("data-conflict");
  await expect(conflict).toContainText("Someone else changed this record");
  await expect(conflict).toContainText(`${marker} by someone else`);
});

test("the same jargon word learned in two chats shows which chat each entry belongs to", async ({ page, api }) => {
  const word = `e2e词${Date.now().toString(36)}`;
  const weekend = await api.createSession("周末爬山群");
  const work = await api.createSession("工作群");
  for (const [sessionId, meaning] of [
    [weekend, "爬山时说的"],
    [work, "开会时说的"],
    [null, "到处都说"],
  ] as const) {
    const res = await api.ctx.post("/api/jargon", { data: { word, meaning, ...(sessionId ? { sessionId } : {}) } });
    expect(res.status(), await res.text()).toBe(201);
  }

  await page.goto("/data");
  await page.getByTestId("data-tab-button-jargon").click();
  await page.getByTestId("data-search").fill(word);
  const rows = page.getByTestId("data-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: "爬山时说的" })).toContainText("周末爬山群");
  await expect(rows.filter({ hasText: "开会时说的" })).toContainText("工作群");
  await expect(rows.filter({ hasText: "到处都说" })).toContainText("all chats");
  // Names, not ids.
  await expect(rows.filter({ hasText: "爬山时说的" })).not.toContainText(weekend);
});

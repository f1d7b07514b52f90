// Issue 14's dashboard defects in the browser: the chat box speaks under the name in its field (the
// restored name never overwrites a typed one), the Now/Totals panels stay at 800 px, a tool call's
// title stays on one line beside long arguments, one language switch that persists, a themed 404,
// no "@bot" in private chats, and the replay titled by the session's name.
import { expect, test } from "./support/fixtures";

test("the chat box sends under the name typed right after the page opens, every time", async ({ page, api }) => {
  const id = await api.createSession("Name race");
  // The previous speaker is remembered in this browser.
  await page.addInitScript(() => window.localStorage.setItem("maisaka.chat.name", "Alice"));
  for (let run = 0; run < 6; run++) {
    await page.goto(`/sessions/${encodeURIComponent(id)}`);
    const name = page.getByLabel("Your name in the chat");
    // Type as soon as the field exists: before the fix a restore effect could land after this.
    await name.fill(`Bob${run}`);
    await page.getByLabel("Message text").fill(`message ${run}`);
    await expect(name).toHaveValue(`Bob${run}`);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("chat-message").filter({ hasText: `message ${run}` })).toContainText(`Bob${run}`);
  }
  // Each message is announced once it arrives (message.pending) or once a turn takes it (message.ingested),
  // whichever comes first: the name it was registered under, per message.
  const speakers = new Map<string, string>();
  for (const e of await api.events(id)) {
    if (e.type !== "message.pending" && e.type !== "message.ingested") continue;
    const messageId = String(e.data.messageId);
    if (!speakers.has(messageId)) speakers.set(messageId, String(e.data.speakerName));
  }
  expect([...speakers.values()]).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Bob${i}`));
});

test("at 800 px the Now and Totals panels stay visible, stacked under the timeline", async ({ page, api }) => {
  const id = await api.createSession("Narrow");
  await api.send(id, "hello", { atBot: true });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  const now = page.getByTestId("stage-panel");
  const totals = page.getByRole("region", { name: "Session totals" });
  await expect(now).toBeVisible();
  await expect(totals).toBeVisible();
  const timeline = (await page.getByTestId("timeline").boundingBox())!;
  const nowBox = (await now.boundingBox())!;
  expect(nowBox.y).toBeGreaterThanOrEqual(timeline.y + timeline.height - 1);
  expect(nowBox.x + nowBox.width).toBeLessThanOrEqual(800);
});

test("a tool call's title stays on one line however long its arguments", async ({ page }) => {
  await page.goto("/");
  // The real stylesheet on the real markup of a tool call in a narrow card.
  const heights = await page.evaluate(() => {
    const host = document.createElement("div");
    host.style.width = "320px";
    host.innerHTML = `<ul class="tool-calls"><li class="tool-call"><div class="tool-call-head">
      <span class="ok-mark">✓</span><span class="mono tool-name">reply</span>
      <span class="muted tool-title">回复消息</span>
      <code class="args">${JSON.stringify({ reference_info: "很长的参数".repeat(60) })}</code>
      <span class="grow"></span><span class="mono muted">7 ms</span></div></li></ul>`;
    // The same title laid out on its own: the width it needs on one line, whatever fonts this machine has.
    const alone = document.createElement("span");
    alone.className = "muted tool-title";
    alone.style.whiteSpace = "nowrap";
    alone.textContent = "回复消息";
    document.body.append(host, alone);
    const natural = alone.getBoundingClientRect().width;
    alone.remove();
    const title = host.querySelector(".tool-title")!.getBoundingClientRect();
    const name = host.querySelector(".tool-name")!.getBoundingClientRect();
    const args = host.querySelector(".args")!.getBoundingClientRect();
    host.remove();
    return {
      title: title.height,
      titleWidth: title.width,
      natural,
      name: name.height,
      args: args.height,
      argsWidth: args.width,
    };
  });
  expect(heights.title).toBeLessThanOrEqual(heights.name * 1.5);
  expect(heights.titleWidth).toBeGreaterThanOrEqual(heights.natural - 1);
  expect(heights.args).toBeGreaterThan(heights.name * 2); // the arguments wrap instead
  expect(heights.argsWidth).toBeLessThanOrEqual(320);
});

test("one language switch: zh-CN and back, kept across reloads", async ({ page, api }) => {
  const id = await api.createSession("Language");
  await api.send(id, "你好", { atBot: true });
  await api.waitIdle(id);
  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  // The landmarks' names are translated too.
  const nav = {
    en: page.getByRole("navigation", { name: "Main" }),
    zh: page.getByRole("navigation", { name: "主导航" }),
  };
  await expect(nav.en.getByRole("link", { name: "Sessions" })).toBeVisible();
  await page.getByTestId("locale-switch").selectOption("zh-CN");
  await expect(nav.zh.getByRole("link", { name: "会话" })).toBeVisible();
  await expect(page.getByTestId("stage-panel")).not.toContainText(/Idle|Cooldown|Planner|Timing/);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(nav.zh.getByRole("link", { name: "会话" })).toBeVisible();
  await expect(page.getByRole("region", { name: "会话合计" })).toContainText("合计");
  await page.getByTestId("locale-switch").selectOption("en");
  await page.reload();
  await expect(nav.en.getByRole("link", { name: "Sessions" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Session totals" })).toContainText("Totals");
});

test("an unknown path shows the themed not-found page with a way home", async ({ page }) => {
  const res = await page.goto("/no/such/page");
  expect(res?.status()).toBe(404);
  await expect(page.getByTestId("not-found")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await page.getByRole("link", { name: "Back to all sessions" }).click();
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
});

test("@bot is offered in group chats only", async ({ page, api }) => {
  const res = await api.ctx.post("/api/sessions", { data: { name: "Private one", isGroupChat: false } });
  expect(res.status()).toBe(201);
  const privateId = ((await res.json()) as { id: string }).id;
  await page.goto(`/sessions/${encodeURIComponent(privateId)}`);
  await expect(page.getByLabel("Message text")).toBeVisible();
  await expect(page.getByRole("button", { name: "@bot" })).toHaveCount(0);
  const groupId = await api.createSession("Group one");
  await page.goto(`/sessions/${encodeURIComponent(groupId)}`);
  await expect(page.getByRole("button", { name: "@bot" })).toBeVisible();
});

test("the replay is titled by the session's name, the id beside it", async ({ page, api }) => {
  const id = await api.createSession("周末群回放");
  await api.send(id, "大家好");
  await api.waitIdle(id);
  await page.goto(`/sessions/${encodeURIComponent(id)}/replay`);
  await expect(page.getByTestId("replay-title")).toHaveText("Replay of 周末群回放");
  await expect(page.locator(".page-head")).toContainText(id);
});

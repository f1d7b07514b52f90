// Settings live on /settings: a nickname and a prompt override changed in the forms (preview first,
// with a reason), and the next turn's "what the model saw" has them and names the settings version;
// a second operator's stale save gets the conflict message. The settings are put back at the end
// (the e2e server is shared by every spec).
import { expect, shot, test } from "./support/fixtures";

const NICKNAME = "<b>小麦</b>";

test("a settings change takes effect at the next turn", async ({ page, api }) => {
  const start = (await (await api.ctx.get("/api/settings")).json()) as {
    version: number;
    settings: { bot: { nickname: string }; chat: { talkValue: number }; prompts: Record<string, string> };
  };
  try {
    await page.goto("/settings");
    await expect(page.getByTestId("settings-page")).toBeVisible();
    await page.getByTestId("settings-nickname").fill(NICKNAME);
    await page.getByRole("tab", { name: /Prompts/ }).click();
    await page.getByTestId("settings-prompt-name").selectOption("maisaka_chat");
    await expect(page.getByTestId("settings-prompt-default")).toContainText("你的名字是{nickname}");
    await page
      .getByTestId("settings-prompt-text")
      .fill("你是{nickname}（e2e 覆盖的提示词）。用 reply 回复，然后 finish。");

    // Apply waits for a preview; the preview lists each change.
    await page.getByTestId("settings-reason").fill("e2e: rename the bot");
    await expect(page.getByTestId("settings-apply")).toBeDisabled();
    await page.getByTestId("settings-preview").click();
    const diff = page.getByTestId("settings-diff");
    await expect(diff.locator('[data-path="bot.nickname"]')).toContainText(NICKNAME);
    await expect(diff.locator('[data-path="prompts.zh-CN:maisaka_chat"]')).toBeVisible();
    await expect(diff.locator("b")).toHaveCount(0);
    await shot(page, "settings-preview");
    await page.getByTestId("settings-apply").click();
    await expect(page.getByTestId("settings-saved")).toBeVisible();
    const version = start.version + 1;
    await expect(page.getByTestId("settings-version")).toContainText(`version ${version}`);

    // The next turn runs on the new settings.
    const sessionId = await api.createSession("Settings e2e");
    await api.send(sessionId, "在吗？", { atBot: true });
    await api.waitIdle(sessionId);
    const finalized = (await api.events(sessionId)).filter((e) => e.type === "planner.finalized");
    const lastCycle = String(finalized.at(-1)?.data.cycleId);
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    // The latest cycle: the live view follows the end of the timeline, so its card is rendered.
    const card = page.locator(`[data-testid="cycle-card"][data-cycle-id="${lastCycle}"]`);
    await card.getByRole("button", { name: /What the model saw/ }).click();
    const panel = card.getByRole("region", { name: "What the model saw" });
    await expect(panel).toContainText(`你是${NICKNAME}（e2e 覆盖的提示词）`);
    await expect(panel.getByTestId("prompt-version").first()).toContainText(`settings v${version}`);
    await expect(panel.getByTestId("prompt-version").first()).toContainText("maisaka_chat");
    await expect(panel.locator("b")).toHaveCount(0);
    await shot(page, "settings-model-input");

    // A second operator who loaded the page before that change: the save is refused and says why.
    await page.goto("/settings");
    // The page has loaded the settings before the other change lands.
    await expect(page.getByTestId("settings-version")).toContainText(`version ${version}`);
    const stale = await api.ctx.patch("/api/settings", {
      data: { version: start.version, reason: "stale edit", chat: { talkValue: 0.5 } },
    });
    expect(stale.status()).toBe(409);
    // In the page: another change lands after it loaded, then this operator saves.
    const meanwhile = await api.ctx.patch("/api/settings", {
      data: { version, reason: "someone else", chat: { talkValue: 0.8 } },
    });
    expect(meanwhile.status()).toBe(200);
    await page.getByTestId("settings-nickname").fill("麦麦二号");
    await page.getByTestId("settings-reason").fill("late edit");
    await page.getByTestId("settings-preview").click();
    const conflict = page.getByTestId("settings-conflict");
    await expect(conflict).toContainText("chat.talkValue");
    await conflict.getByRole("button", { name: /Reload/ }).click();
    await expect(page.getByTestId("settings-version")).toContainText(`version ${version + 1}`);
    await expect(page.getByTestId("settings-nickname")).toHaveValue(NICKNAME);
  } finally {
    const now = (await (await api.ctx.get("/api/settings")).json()) as { version: number };
    await api.ctx.patch("/api/settings", {
      data: {
        version: now.version,
        reason: "e2e: put the settings back",
        bot: { nickname: start.settings.bot.nickname },
        chat: { talkValue: start.settings.chat.talkValue },
        prompts: { "zh-CN:maisaka_chat": start.settings.prompts["zh-CN:maisaka_chat"] ?? null },
      },
    });
  }
});

// The Settings page: its form's change names only what was edited (numbers typed wrong are sent as
// typed, so the server's validation names the field), and the page renders hostile text as text with
// the default template beside the override, labels and help in words, and for a viewer read-only.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SettingsPage } from "../../components/settings/SettingsPage";
import { settingsResponseSchema, type SettingsResponse } from "../../lib/api/settings";
import { maisakaConfigSchema } from "../../lib/config/schema";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import { queryKeys } from "../../lib/client/query-keys";
import { draftOf, patchOf, settingsQueryKey } from "../../lib/client/settings";

const config = maisakaConfigSchema.parse({});
const loaded = {
  bot: config.bot,
  chat: config.chat,
  models: { tasks: config.models.tasks },
  prompts: { maisaka_timing_gate: "gate for {nickname}" },
};

describe("the settings form's change", () => {
  it("is null when nothing was edited", () => {
    expect(patchOf(loaded, draftOf(loaded))).toBeNull();
  });

  it("names only edited keys, numbers as numbers, bad numbers as typed", () => {
    const draft = draftOf(loaded);
    draft.bot.nickname = "小麦";
    draft.bot.aliases = "麦子， mai";
    draft.chat.talkValue = "0.5";
    draft.chat.maxContextSize = "many";
    draft.tasks.planner = { endpoint: "default", model: "gpt-x" };
    draft.rules.push({ start: "23:00", end: "07:00", value: "0.1", chat: "" });
    expect(patchOf(loaded, draft)).toEqual({
      bot: { nickname: "小麦", aliases: ["麦子", "mai"] },
      chat: {
        talkValue: 0.5,
        maxContextSize: "many",
        talkValueRules: [{ start: "23:00", end: "07:00", value: 0.1 }],
      },
      models: { tasks: { planner: { endpoint: "default", model: "gpt-x", fallback: [] } } },
    });
  });

  it("turns an edited bare override into per-locale ones and removes a cleared one", () => {
    const draft = draftOf(loaded);
    expect(draft.prompts["en:maisaka_timing_gate"]).toBe("gate for {nickname}");
    draft.prompts["en:maisaka_timing_gate"] = "";
    draft.prompts["zh-CN:maisaka_chat"] = "我是{nickname}";
    expect(patchOf(loaded, draft)?.prompts).toEqual({
      "en:maisaka_timing_gate": null,
      "zh-CN:maisaka_timing_gate": "gate for {nickname}",
      maisaka_timing_gate: null,
      "zh-CN:maisaka_chat": "我是{nickname}",
    });
  });
});

const base = {
  version: 3,
  updatedAt: 1,
  endpoints: ["default"],
  promptNames: ["maisaka_chat"],
  defaults: { "zh-CN": { maisaka_chat: "你的名字是{nickname}<b>" }, en: { maisaka_chat: "Your name" } },
  changes: [],
};

/** The page as an account of this role sees it (the role is known: the nav's /api/auth/me answered). */
function renderAs(role: "operator" | "viewer", answer: SettingsResponse): string {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(settingsQueryKey, answer);
  client.setQueryData(queryKeys.me, { authenticated: true, via: "cookie", account: { id: "a", name: "a", role } });
  const page = createElement(LocaleProvider, { initial: "en", hasCookie: true, children: createElement(SettingsPage) });
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, page));
}

describe("SettingsPage", () => {
  it("renders hostile values as text, with the version and the default templates", () => {
    const answer: SettingsResponse = settingsResponseSchema.parse({
      version: 3,
      updatedAt: 1,
      settings: { ...loaded, bot: { ...loaded.bot, nickname: `<img src=x onerror="alert(1)">` } },
      endpoints: ["default"],
      promptNames: ["maisaka_chat"],
      defaults: { "zh-CN": { maisaka_chat: "你的名字是{nickname}<b>" }, en: { maisaka_chat: "Your name" } },
      changes: [],
    });
    const html = renderAs("operator", answer);
    expect(html).toContain("version 3");
    expect(html).not.toContain("<img");
    expect(html).toContain('value="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"');
    expect(html).toContain("Reason (required)");
    // Labels and help in words, not keys.
    expect(html).toContain("Nickname");
    expect(html).toContain("The name the bot goes by in chats");
  });

  it("shows a viewer the values read-only, with nothing to apply", () => {
    const html = renderAs("viewer", settingsResponseSchema.parse({ ...base, settings: loaded }));
    expect(html).toContain('value="麦麦"');
    expect(html).toMatch(/<input[^>]*readOnly=""[^>]*data-testid="settings-nickname"/);
    expect(html).not.toContain("Reason (required)");
    expect(html).not.toContain("Preview the change");
  });
});

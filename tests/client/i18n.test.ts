// The dashboard's one language switch: a typed catalog with plurals, stage names wholly in the
// chosen language, and components following the provider's locale.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StageBadge } from "../../components/sessions/StageBadge";
import { LocaleSwitch } from "../../components/shell/LocaleSwitch";
import { localeCookie, savedLocale } from "../../lib/client/locale";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import { stageIdSchema } from "../../lib/events/schemas";
import { DEFAULT_LOCALE, parseLocale, translate, type Locale } from "../../lib/i18n/messages";
import { connectionStateLabel } from "../../lib/i18n/platforms";
import { stageLabel } from "../../lib/i18n/stages";

const inLocale = (locale: Locale, element: ReturnType<typeof createElement>) =>
  renderToStaticMarkup(createElement(LocaleProvider, { initial: locale, hasCookie: true, children: element }));

describe("message catalog", () => {
  it("picks English plural forms through Intl.PluralRules", () => {
    expect(translate("en", "cycle.historyCount", { count: 1 })).toBe("1 message in context");
    expect(translate("en", "cycle.historyCount", { count: 0 })).toBe("0 messages in context");
    expect(translate("en", "cycle.historyCount", { count: 2 })).toBe("2 messages in context");
    expect(translate("en", "live.newEvents", { count: 1 })).toBe("1 new event · Resume");
    expect(translate("en", "live.newEvents", { count: 1200 })).toBe("1,200 new events · Resume");
    expect(translate("zh-CN", "cycle.historyCount", { count: 1 })).toBe("上下文 1 条消息");
    const messages = translate("en", "cycle.requestMessages", { count: 1 });
    expect(translate("en", "cycle.requestSummary", { messages, count: 1 })).toBe("1 message · 1 tool offered");
    expect(translate("en", "cycle.newMessages", { count: 1 })).toBe("1 new message arrived");
    expect(translate("en", "modelInput.historySelected", { count: 1 })).toBe("1 history message selected");
  });

  it("fills placeholders as text and leaves unknown ones visible", () => {
    expect(translate("en", "replay.title", { name: "<b>x</b>" })).toBe("Replay of <b>x</b>");
    expect(translate("en", "replay.title")).toBe("Replay of {name}");
  });

  it("reads the locale from a cookie or storage value, English otherwise", () => {
    expect(DEFAULT_LOCALE).toBe("en");
    expect(parseLocale("zh-CN")).toBe("zh-CN");
    expect(parseLocale("fr")).toBe("en");
    expect(parseLocale(undefined)).toBe("en");
    expect(localeCookie("zh-CN")).toMatch(/^maisaka_locale=zh-CN; Path=\/; Max-Age=\d+; SameSite=Lax$/);
    expect(savedLocale({ getItem: () => "zh-CN" })).toBe("zh-CN");
    expect(savedLocale({ getItem: () => null })).toBeNull();
    expect(
      savedLocale({
        getItem: () => {
          throw new Error("storage disabled");
        },
      }),
    ).toBeNull();
  });
});

describe("stage names", () => {
  it("are wholly Chinese in zh-CN and wholly English in en", () => {
    for (const id of stageIdSchema.options) {
      expect(stageLabel(id, "zh-CN"), id).not.toMatch(/[A-Za-z]/);
      expect(stageLabel(id, "en"), id).not.toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("follow the switch in the stage badge, with the agent state", () => {
    const badge = createElement(StageBadge, { agentState: "running", stage: "planner" });
    const en = inLocale("en", badge);
    expect(en).toContain(">running<");
    expect(en).toContain(">Planner<");
    const zh = inLocale("zh-CN", badge);
    expect(zh).toContain(">运行中<");
    expect(zh).toContain(">行动规划<");
    expect(zh).not.toMatch(/>[^<]*[A-Za-z][^<]*</);
  });

  it("platform states follow the same switch", () => {
    expect(connectionStateLabel("open", "en")).toBe("Online");
    expect(connectionStateLabel("open", "zh-CN")).toBe("在线");
  });
});

describe("LocaleSwitch", () => {
  it("offers both languages, each named in itself, with the current one selected", () => {
    const html = inLocale("zh-CN", createElement(LocaleSwitch));
    expect(html).toContain('data-testid="locale-switch"');
    expect(html).toMatch(/<option value="en" lang="en">English<\/option>/);
    expect(html).toMatch(/<option value="zh-CN" lang="zh-CN" selected="">中文<\/option>/);
  });
});

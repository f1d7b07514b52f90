// The replay page speaks the operator's language: every text of its transport, status line and lists.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ReplayBody } from "../../components/replay/SessionReplay";
import type { Locale } from "../../lib/i18n/messages";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import { SESSION, fixtureEvents } from "./fixture";

function render(locale: Locale): string {
  const body = createElement(ReplayBody, { sessionId: SESSION, events: fixtureEvents });
  const page = createElement(LocaleProvider, { initial: locale, hasCookie: true, children: body });
  return renderToStaticMarkup(createElement(QueryClientProvider, { client: new QueryClient() }, page));
}

/** Visible text and the labels a screen reader or a tooltip shows, without markup. */
function texts(html: string): string {
  const attrs = [...html.matchAll(/(?:title|aria-label)="([^"]*)"/g)].map((m) => m[1]);
  return [html.replace(/<[^>]*>/g, " "), ...attrs].join(" ");
}

describe("replay page texts", () => {
  it("are all Chinese in zh-CN: no English word left in the transport, status line or lists", () => {
    const text = texts(render("zh-CN"));
    expect(text).toContain("跳过沉默");
    expect(text).toContain("聊天记录");
    expect(text).toContain(`事件 0 / ${fixtureEvents.length}`);
    // Key names (Space, Shift) and the speeds are the same in both languages.
    const english = text.replace(/\b(Space|Shift)\b/g, "").match(/\b[A-Za-z]{3,}\b/g) ?? [];
    expect(english).toEqual([]);
  });

  it("are English in en", () => {
    const text = texts(render("en"));
    expect(text).toContain("skip silences");
    expect(text).toContain("Chat transcript at the playhead");
    expect(text).toContain(`event 0 / ${fixtureEvents.length}`);
  });
});

// A search hit as rendered: the snippet is text with <mark> around the matched ranges (markup in the
// recorded text stays text), and the hit links the replay at its event and the live view at its cycle.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { HitRow } from "../../components/search/SearchPage";
import type { SearchHit } from "../../lib/api/search";

const hit: SearchHit = {
  sessionId: "qq:1:group:2",
  seq: 42,
  cycleId: "c-7",
  kind: "tool_result",
  snippet: '<img src=x onerror="alert(1)"> 北京天气 sunny',
  marks: [
    [31, 35],
    [36, 41],
  ],
  ts: 1_767_225_600_000,
  tool: "web_search",
  failed: true,
};

describe("search hit row", () => {
  it("marks the ranges as text and never renders the snippet as markup", () => {
    const html = renderToStaticMarkup(
      createElement(HitRow, { hit, session: undefined, selected: true, onSelect: () => undefined }),
    );
    expect(html).toContain("<mark>北京天气</mark>");
    expect(html).toContain("<mark>sunny</mark>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=");
    expect(html).toContain('aria-selected="true"');
    expect(html).toContain("web_search");
  });

  it("names the hit's session, with the chat's number beside the name, the id only in the title", () => {
    const session = {
      id: "qq:1:group:2",
      name: "周末爬山群",
      platform: "qq",
      groupId: "2",
      userId: null,
      createdAt: 1_767_225_600_000,
    };
    const html = renderToStaticMarkup(
      createElement(HitRow, { hit, session, selected: false, onSelect: () => undefined }),
    );
    const visible = html.replace(/ title="[^"]*"/g, "").replace(/ (href|data-[a-z-]+)="[^"]*"/g, "");
    expect(visible).toContain("周末爬山群");
    expect(visible).toContain(" · 2<");
    expect(visible).not.toContain("qq:1:group:2");
    expect(html).toContain('title="qq:1:group:2 · qq · ');
  });

  it("links the replay at the event and the live view at the cycle", () => {
    const html = renderToStaticMarkup(
      createElement(HitRow, { hit, session: undefined, selected: false, onSelect: () => undefined }),
    );
    expect(html).toContain('href="/sessions/qq%3A1%3Agroup%3A2/replay?seq=42"');
    expect(html).toContain('href="/sessions/qq%3A1%3Agroup%3A2?cycle=c-7"');
  });
});

// The timeline rows as the browser gets them (server-rendered markup of the real components): a
// platform message's text stays text, only http(s) pictures become <img> (lazy, no referrer), a
// recalled message is marked, and send failures and operator actions read as notices.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MessageRow, NoticeRow } from "../../components/session-live/TimelineRows";
import { monitorEventSchema } from "../../lib/events/schemas";
import type { ChatEvent, NoticeEvent } from "../../lib/client/timeline";

const event = (type: string, data: unknown) =>
  monitorEventSchema.parse({ seq: 7, sessionId: "qq:1:group:2", type, ts: 1_700_000_000_000, data });

const hostile = '<img src=x onerror="alert(1)">[CQ:image,file=x]';
const ingested = event("message.ingested", {
  speakerName: "Alice",
  userId: "30003",
  content: hostile,
  messageId: "m1",
  platform: "qq",
  images: [
    { url: "https://gchat.qpic.cn/a.jpg", file: "a.jpg" },
    { url: "javascript:alert(1)" },
    { file: "only-a-file.jpg" },
  ],
}) as ChatEvent;

describe("MessageRow", () => {
  it("renders platform text as text, and only http(s) pictures, through the server, as lazy no-referrer images", () => {
    const html = renderToStaticMarkup(createElement(MessageRow, { event: ingested }));
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=");
    const imgs = [...html.matchAll(/<img\b[^>]*>/g)].map((m) => m[0]);
    expect(imgs).toHaveLength(1);
    expect(imgs[0]).toMatch(/src="\/api\/sessions\/[^/"]+\/messages\/m1\/images\/0"/);
    expect(html).not.toContain('gchat.qpic.cn/a.jpg"');
    expect(imgs[0]).toContain('loading="lazy"');
    expect(imgs[0]).toContain('referrerPolicy="no-referrer"');
    expect(html).not.toMatch(/(src|href)="javascript:/);
    expect(html).toContain('data-platform="qq"');
    expect(html).toContain(">QQ<");
    expect(html).not.toContain("data-recalled");
  });

  it("marks a recalled message and keeps its text", () => {
    const html = renderToStaticMarkup(createElement(MessageRow, { event: ingested, recalled: true }));
    expect(html).toContain("msg-recalled");
    expect(html).toContain('data-recalled="true"');
    expect(html).toContain(">recalled<");
    expect(html).toContain("&lt;img src=x onerror=");
  });
});

describe("NoticeRow", () => {
  it("says what failed to go out and what an operator did", () => {
    const failed = renderToStaticMarkup(
      createElement(NoticeRow, {
        event: event("message.send_failed", { target: "group:2", error: "retcode 1200" }) as NoticeEvent,
      }),
    );
    expect(failed).toContain("notice-bad");
    expect(failed).toContain("Not delivered to group:2: retcode 1200");
    const action = renderToStaticMarkup(
      createElement(NoticeRow, {
        event: event("operator.action", {
          actor: "admin",
          action: "message.send",
          target: "qq:1:group:2",
          detail: { text: "<b>hi</b>" },
        }) as NoticeEvent,
      }),
    );
    expect(action).toContain("notice-operator");
    expect(action).toContain("sent as the bot to qq:1:group:2: “&lt;b&gt;hi&lt;/b&gt;”");
    const run = renderToStaticMarkup(
      createElement(NoticeRow, {
        event: event("operator.action", {
          actor: "operator",
          action: "tool.invoke",
          target: "roll_dice",
          detail: { arguments: { notation: "2d6" }, success: false, durationMs: 12.4 },
        }) as NoticeEvent,
      }),
    );
    expect(run).toContain("Operator operator: ran the tool roll_dice by hand (failed, 12 ms)");
  });
});

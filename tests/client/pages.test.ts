// Pages' headings: an unknown path gets the app's own themed page with the way home, and the replay
// is titled by the session's name with the id secondary.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import NotFoundPage from "../../app/not-found";
import { ReplayHeading } from "../../components/replay/SessionReplay";
import { sessionTitle } from "../../lib/client/session-title";
import { applyEvents, emptyTimeline } from "../../lib/client/timeline";
import { SESSION, fixtureEvents } from "./fixture";

describe("not-found page", () => {
  it("is themed (the app's empty state) and links home", () => {
    const html = renderToStaticMarkup(createElement(NotFoundPage));
    expect(html).toContain('data-testid="not-found"');
    expect(html).toContain("state-empty");
    expect(html).toMatch(/<a[^>]*href="\/"[^>]*>Back to all sessions<\/a>/);
  });
});

describe("replay title", () => {
  it("names the session: stored name, else the recording's name, else the id", () => {
    const timeline = applyEvents(emptyTimeline(SESSION), fixtureEvents);
    const recorded = fixtureEvents.find((e) => e.type === "session.start");
    expect(recorded?.type === "session.start" && recorded.data.sessionName).toBeTruthy();
    expect(sessionTitle(SESSION, { name: "周末群" }, timeline)).toBe("周末群");
    expect(sessionTitle(SESSION, { name: "" }, timeline)).toBe(
      recorded?.type === "session.start" ? recorded.data.sessionName : "",
    );
    expect(sessionTitle(SESSION, undefined, undefined)).toBe(SESSION);
  });

  it("shows the name as the heading and the id beside it", () => {
    const html = renderToStaticMarkup(createElement(ReplayHeading, { sessionId: "qq:1:group:2", name: "周末群" }));
    expect(html).toMatch(/<h1[^>]*data-testid="replay-title"[^>]*>Replay of 周末群<\/h1>/);
    expect(html).toContain(">qq:1:group:2</span>");
    const bare = renderToStaticMarkup(createElement(ReplayHeading, { sessionId: "s1", name: "s1" }));
    expect(bare.match(/s1/g)?.length).toBe(2); // title attribute and heading text, no duplicate line
  });
});

// Platform marks in the timeline: a recalled message stays and is flagged (in any batching, and
// when the recall arrives before an earlier gap is filled), send failures and operator actions are
// notices, and only http(s) image URLs are ever loaded.
import { describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { chatImagePath } from "../../lib/client/images";
import { heartbeatHealth, HEARTBEAT_STALE_MS } from "../../lib/client/platforms";
import { applyEvents, buildTimeline, emptyTimeline, type Timeline } from "../../lib/client/timeline";
import { chatPlatformLabel, connectionStateLabel } from "../../lib/i18n/platforms";
import type { PlatformConnection } from "../../lib/platforms/status";

const S = "qq:10001:group:20002";
const at = (seq: number, type: string, data: unknown): MonitorEvent =>
  monitorEventSchema.parse({ seq, sessionId: S, type, ts: 1_000 + seq, data });

const ingested = (seq: number, messageId: string) =>
  at(seq, "message.ingested", {
    speakerName: "Alice",
    userId: "30003",
    content: `hello ${messageId}`,
    messageId,
    platform: "qq",
    images: [{ url: "https://multimedia.nt.qq.com.cn/download?id=1", file: "a.jpg" }],
  });

const events: MonitorEvent[] = [
  ingested(1, "m1"),
  ingested(2, "m2"),
  at(3, "message.recalled", { messageId: "m1" }),
  at(4, "message.send_failed", { messageId: "b1", target: "group:20002", error: "retcode 100" }),
  at(5, "operator.action", {
    actor: "admin",
    action: "message.send",
    target: S,
    detail: { text: "hi from the operator" },
  }),
  at(6, "message.recalled", { messageId: "unknown" }),
];

function marks(t: Timeline) {
  return t.items.map((i) => {
    if (i.kind === "message") return `${i.event.data.messageId}${i.recalled ? ":recalled" : ""}`;
    return i.kind === "notice" ? `notice:${i.event.type}` : `cycle:${i.cycle.cycleId}`;
  });
}

const expected = ["m1:recalled", "m2", "notice:message.send_failed", "notice:operator.action"];

describe("platform marks in the timeline", () => {
  it("flags the recalled message in place and shows failures and operator actions as notices", () => {
    const t = buildTimeline(S, events);
    expect(marks(t)).toEqual(expected);
    expect(t.messageCount).toBe(2);
  });

  it("gives the same marks one event at a time, and when the message arrives after its recall (gap filled)", () => {
    let oneByOne = emptyTimeline(S);
    for (const e of events) oneByOne = applyEvents(oneByOne, [e]);
    expect(marks(oneByOne)).toEqual(expected);

    // The live window first, the older page later: the rebuild must still find m1.
    const late = applyEvents(applyEvents(emptyTimeline(S), events.slice(1)), events.slice(0, 1));
    expect(marks(late)).toEqual(expected);
  });

  it("never mutates the previous timeline when a recall lands", () => {
    const before = buildTimeline(S, events.slice(0, 2));
    applyEvents(before, [events[2]]);
    expect(marks(before)).toEqual(["m1", "m2"]);
  });
});

describe("chat image URLs", () => {
  it("loads only http and https, and only through the server", () => {
    expect(chatImagePath("qq:1:group:2", "77", 0, "https://gchat.qpic.cn/x.jpg")).toBe(
      "/api/sessions/qq%3A1%3Agroup%3A2/messages/77/images/0",
    );
    expect(chatImagePath("s", "m/1", 3, "http://127.0.0.1:6099/img?id=1")).toBe(
      "/api/sessions/s/messages/m%2F1/images/3",
    );
    for (const bad of [
      undefined,
      "",
      "javascript:alert(1)",
      "data:image/svg+xml,<svg onload=alert(1)>",
      "file:///etc/passwd",
      "base64://AAAA",
      "not a url",
    ])
      expect(chatImagePath("s", "m", 0, bad)).toBeNull();
  });
});

describe("platform labels and heartbeat health", () => {
  const conn = (lastHeartbeatAt: number | null): PlatformConnection => ({
    platform: "onebot",
    selfId: "10001",
    mode: "reverse",
    role: "Universal",
    address: "127.0.0.1:5000",
    state: "open",
    connectedSince: 0,
    lastHeartbeatAt,
    eventsIn: 0,
    actionsOut: 0,
    errors: 0,
  });

  it("names QQ sessions and leaves local ones unbadged", () => {
    expect(chatPlatformLabel("qq")).toBe("QQ");
    expect(chatPlatformLabel("dashboard")).toBeNull();
    expect(chatPlatformLabel("toString")).toBeNull();
    expect(chatPlatformLabel(undefined)).toBeNull();
    expect(connectionStateLabel("open")).toBe("在线");
    expect(connectionStateLabel("closed", "en")).toBe("Disconnected");
  });

  it("turns stale after HEARTBEAT_STALE_MS without a heartbeat", () => {
    const now = 1_000_000;
    expect(heartbeatHealth(conn(null), now)).toBe("none");
    expect(heartbeatHealth(conn(now - HEARTBEAT_STALE_MS), now)).toBe("fresh");
    expect(heartbeatHealth(conn(now - HEARTBEAT_STALE_MS - 1), now)).toBe("stale");
  });
});

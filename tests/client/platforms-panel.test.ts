// The platforms page as rendered markup of the real component with a GET /api/platforms answer in
// the query cache: one row per connection with what the implementation reported (as text), and the
// how-to-connect state when there is none.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PlatformsPanel } from "../../components/platforms/PlatformsPanel";
import { parseIdList } from "../../lib/client/platforms";
import { queryKeys } from "../../lib/client/query-keys";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import type { Locale } from "../../lib/i18n/messages";
import { platformsResponseSchema, type PlatformsResponse } from "../../lib/platforms/status";

/** A GET /api/platforms answer; requests null (no request recorded) and no adapters unless given. */
function render(
  answer: Omit<PlatformsResponse, "requests" | "adapters"> & Partial<Pick<PlatformsResponse, "requests" | "adapters">>,
  locale: Locale = "zh-CN",
): string {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(queryKeys.platforms, platformsResponseSchema.parse({ requests: null, ...answer }));
  const panel = createElement(LocaleProvider, {
    initial: locale,
    hasCookie: true,
    children: createElement(PlatformsPanel),
  });
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, panel));
}

const now = Date.now();

describe("PlatformsPanel", () => {
  it("lists every connection with its implementation, login, state, counters and last error", () => {
    const html = render({
      connections: [
        {
          platform: "onebot",
          selfId: "10001",
          mode: "reverse",
          role: "Universal",
          address: "127.0.0.1:51234",
          state: "open",
          implementation: { name: "NapCat.Onebot", version: "4.8.1" },
          login: { userId: "10001", nickname: "<b>麦麦</b>" },
          connectedSince: now - 60_000,
          lastHeartbeatAt: now - 1_000,
          eventsIn: 12_345,
          actionsOut: 67,
          errors: 2,
          lastError: { at: now - 5_000, message: "send_group_msg: timeout after 10000 ms" },
        },
        {
          platform: "onebot",
          selfId: "10002",
          mode: "forward",
          role: "Universal",
          address: "ws://127.0.0.1:3001",
          state: "closed",
          connectedSince: null,
          lastHeartbeatAt: null,
          eventsIn: 0,
          actionsOut: 0,
          errors: 0,
        },
      ],
      audience: null,
      inbound: {
        ingested: 40,
        notes: 2,
        duplicates: 3,
        own: 1,
        denied: 5,
        recalls: 1,
        requests: 4,
        ignored: 7,
        malformed: 2,
        failed: 0,
      },
    });
    const rows = html.split('data-testid="platform-connection"').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('data-self-id="10001"');
    expect(rows[0]).toContain('data-state="open"');
    expect(rows[0]).toContain("NapCat.Onebot 4.8.1");
    expect(rows[0]).toContain("&lt;b&gt;麦麦&lt;/b&gt;");
    expect(rows[0]).toContain((12_345).toLocaleString());
    expect(rows[0]).toContain("send_group_msg: timeout after 10000 ms");
    expect(rows[0]).toContain("在线");
    expect(rows[1]).toContain("ws://127.0.0.1:3001");
    expect(rows[1]).toContain("已断开");
    expect(html).toContain("2 个中 1 个已连接");
    expect(html).toContain("已接收消息: 40");
    expect(html).toMatch(/badge-bad[^>]*>格式错误: 2/);
  });

  it("names the cluster node holding each connection, and no node on a single process", () => {
    const row = {
      platform: "onebot" as const,
      selfId: "10003",
      mode: "reverse" as const,
      role: "Universal" as const,
      address: "10.0.0.7:40000",
      state: "open" as const,
      connectedSince: now - 1_000,
      lastHeartbeatAt: now - 1_000,
      eventsIn: 1,
      actionsOut: 1,
      errors: 0,
    };
    const html = render({ connections: [{ ...row, node: "node-b:3000" }, row], audience: null, inbound: null }, "en");
    const rows = html.split('data-testid="platform-connection"').slice(1);
    expect(rows[0]).toContain("on node node-b:3000");
    expect(rows[1]).not.toContain("on node");
  });

  it("shows an implementation's refusal by its retcode, and for NapCat's 1403 what to check", () => {
    const refused = {
      platform: "onebot" as const,
      selfId: "",
      mode: "forward" as const,
      role: "Universal" as const,
      address: "ws://127.0.0.1:3001",
      state: "connecting" as const,
      connectedSince: null,
      lastHeartbeatAt: null,
      eventsIn: 0,
      actionsOut: 2,
      errors: 1,
      lastError: { at: now, message: "refused by the implementation: token验证失败 (retcode 1403)", retcode: 1403 },
    };
    const other = {
      ...refused,
      address: "ws://127.0.0.1:3002",
      lastError: { at: now, message: "connect: ECONNREFUSED" },
    };
    const rows = render({ connections: [refused, other], audience: null, inbound: null }, "en")
      .split('data-testid="platform-connection"')
      .slice(1);
    expect(rows[0]).toMatch(/data-testid="platform-refusal" data-retcode="1403"/);
    expect(rows[0]).toContain("Refused by the implementation (retcode 1403)");
    expect(rows[0]).toContain("platforms.onebot.forward[].accessToken");
    expect(rows[0]).toContain("token验证失败");
    expect(rows[1]).not.toContain("platform-refusal");
    expect(rows[1]).toContain("connect: ECONNREFUSED");
    const zh = render({ connections: [refused], audience: null, inbound: null }, "zh-CN");
    expect(zh).toContain("实现拒绝了连接（retcode 1403）");
  });

  it("says when reading from a connection is paused for a flood, and how many events wait", () => {
    const row = {
      platform: "onebot" as const,
      selfId: "10004",
      mode: "reverse" as const,
      role: "Universal" as const,
      address: "127.0.0.1:40000",
      state: "open" as const,
      connectedSince: now - 1_000,
      lastHeartbeatAt: now - 1_000,
      eventsIn: 3_000,
      actionsOut: 1,
      errors: 0,
    };
    const rows = render(
      {
        connections: [
          { ...row, backlog: { waiting: 300, peak: 310, paused: true } },
          { ...row, selfId: "10005", backlog: { waiting: 0, peak: 2, paused: false } },
        ],
        audience: null,
        inbound: null,
      },
      "en",
    )
      .split('data-testid="platform-connection"')
      .slice(1);
    expect(rows[0]).toContain('data-testid="platform-paused"');
    expect(rows[0]).toContain("Reading paused: 300 events wait to be handled");
    expect(rows[1]).not.toContain("platform-paused");
  });

  it("lists the requests recorded under the policy, the requester's words as text", () => {
    const request = {
      platform: "onebot",
      selfId: "10001",
      userId: "20001",
      comment: "<img src=x onerror=alert(1)>",
      flag: "f-1",
      policy: "approve",
    } as const;
    const html = render(
      {
        connections: [],
        audience: null,
        inbound: null,
        requests: {
          policy: "approve",
          recent: [
            { ...request, kind: "friend", outcome: "failed", detail: "请求已过期 (retcode 100)", at: now },
            {
              ...request,
              kind: "group",
              subType: "invite",
              groupId: "30001",
              comment: "",
              outcome: "approved",
              at: now,
            },
            {
              ...request,
              kind: "group",
              subType: "add",
              groupId: "30002",
              outcome: "pending",
              detail: "a request to join a group is left to the group's admins",
              at: now,
            },
          ],
        },
      },
      "en",
    );
    const section = html.split('data-testid="platform-requests"')[1] ?? "";
    expect(section).toMatch(/^ data-policy="approve"/);
    expect(section).toContain(
      "Friend requests from users the bot serves and invitations into groups it serves are approved",
    );
    const rows = section.split('data-testid="platform-request"').slice(1);
    expect(rows.map((r) => /data-outcome="(\w+)"/.exec(r)?.[1])).toEqual(["failed", "approved", "pending"]);
    expect(rows[0]).toContain("20001 asks to be friends");
    expect(rows[0]).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(rows[0]).not.toContain("<img");
    expect(rows[0]).toContain("Approval failed");
    expect(rows[0]).toContain("请求已过期 (retcode 100)");
    expect(rows[1]).toContain("20001 invites the bot into group 30001");
    expect(rows[2]).toContain("20001 asks to join group 30002");
    expect(rows[2]).toContain("Waiting for you");

    const ignoring = render(
      { connections: [], audience: null, inbound: null, requests: { policy: "ignore", recent: [] } },
      "zh-CN",
    );
    expect(ignoring).toContain("忽略：留在 QQ 里由你在那边处理");
    expect(ignoring).not.toContain('platform-request"');
  });

  it("shows the chats served as editable lists, read-only until the account is known to be allowed", () => {
    const html = render(
      {
        connections: [],
        audience: {
          groups: { allow: [], deny: ["30001", "30002"] },
          users: { allow: ["40001"], deny: [] },
          private: false,
        },
        inbound: null,
      },
      "en",
    );
    const form = html.split('data-testid="audience-form"')[1] ?? "";
    expect(form).toContain("Groups denied");
    expect(form).toMatch(/name="groupsDeny"[^>]*>30001\n30002</);
    expect(form).toMatch(/name="usersAllow"[^>]*>40001</);
    expect(form).toMatch(/<input type="checkbox"(?![^>]*checked)/);
    expect(form).toMatch(/<fieldset[^>]*disabled/);
  });

  it("says how to connect when nothing is connected", () => {
    const html = render({ connections: [], audience: null, inbound: null });
    expect(html).toContain("还没有连接聊天平台");
    expect(html).toContain("/onebot/v11/ws");
    expect(html).toContain("platforms.onebot.accessToken");
    expect(html).toContain("docs/platforms.md");
    expect(html).not.toContain("platform-connection");
    expect(html).not.toContain("platforms-inbound");
  });

  it("follows the language switch: heading and connection states", () => {
    const closed = {
      platform: "onebot",
      selfId: "10003",
      mode: "forward",
      role: "Universal",
      address: "ws://127.0.0.1:3002",
      state: "closed",
      connectedSince: null,
      lastHeartbeatAt: null,
      eventsIn: 0,
      actionsOut: 0,
      errors: 0,
    } as const;
    const en = render({ connections: [closed], audience: null, inbound: null }, "en");
    expect(en).toContain("<h1>Platforms</h1>");
    expect(en).toContain(">Disconnected<");
    const zh = render({ connections: [closed], audience: null, inbound: null }, "zh-CN");
    expect(zh).toContain("<h1>平台</h1>");
    expect(zh).toContain(">已断开<");
  });
});

describe("parseIdList", () => {
  it("takes ids separated by lines, spaces or commas, drops repeats and names what is not an id", () => {
    expect(parseIdList("30001\n30002, 30001，abc  12x\n")).toEqual({
      ids: ["30001", "30002"],
      invalid: ["abc", "12x"],
    });
    expect(parseIdList("  ")).toEqual({ ids: [], invalid: [] });
  });
});

// Request events under platforms.onebot.requests, the policy alone (the real server and the simulator:
// implementations.test.ts). Documents followed: OneBot 11 event/request.md (friend: user_id, comment,
// flag; group: sub_type add | invite, group_id) and api/public.md (set_friend_add_request { flag,
// approve }, set_group_add_request { flag, sub_type, approve }).
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../server/config/load";
import type { PlatformRequestData } from "../../../lib/events/schemas";
import { onebotRequestEventSchema } from "../../../lib/platforms/onebot";
import { OneBotActionError, type OneBotApi } from "../../../server/platforms/onebot/api";
import { handleRequest } from "../../../server/platforms/onebot/requests";

function setup(onebot: Record<string, unknown>, fail?: OneBotActionError) {
  const config = parseConfig({ platforms: { onebot } }, "test").platforms.onebot;
  const calls: { action: string; params: Record<string, unknown> }[] = [];
  const recorded: PlatformRequestData[] = [];
  const api: OneBotApi = {
    selfId: "10001",
    call: (action, params) => {
      calls.push({ action, params });
      return fail ? Promise.reject(fail) : Promise.resolve(null);
    },
  };
  const handle = (fields: Record<string, unknown>) =>
    handleRequest(onebotRequestEventSchema.parse({ time: 1, self_id: 10001, post_type: "request", ...fields }), api, {
      config: () => config,
      record: (data) => void recorded.push(data),
    });
  return { calls, recorded, handle };
}

const friend = { request_type: "friend", user_id: 20001, comment: "我是小明", flag: "f-1" };
const invite = { request_type: "group", sub_type: "invite", group_id: 30001, user_id: 20002, comment: "", flag: "g-1" };
const join = {
  request_type: "group",
  sub_type: "add",
  group_id: 30001,
  user_id: 20003,
  comment: "想进群",
  flag: "g-2",
};

describe("request events by policy", () => {
  it("ignore (the default): nothing answered, nothing recorded", async () => {
    const { calls, recorded, handle } = setup({});
    for (const event of [friend, invite, join]) await handle(event);
    expect(calls).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it("notify: each recorded for the operator, none answered", async () => {
    const { calls, recorded, handle } = setup({ requests: "notify" });
    await handle(friend);
    await handle(invite);
    expect(calls).toEqual([]);
    expect(recorded).toEqual([
      {
        platform: "onebot",
        selfId: "10001",
        kind: "friend",
        userId: "20001",
        comment: "我是小明",
        flag: "f-1",
        policy: "notify",
        outcome: "pending",
      },
      expect.objectContaining({
        kind: "group",
        subType: "invite",
        groupId: "30001",
        userId: "20002",
        outcome: "pending",
      }),
    ]);
  });

  it("approve: a friend and an invitation the bot serves are approved as api/public.md asks", async () => {
    const { calls, recorded, handle } = setup({ requests: "approve" });
    await handle(friend);
    await handle(invite);
    expect(calls).toEqual([
      { action: "set_friend_add_request", params: { flag: "f-1", approve: true } },
      { action: "set_group_add_request", params: { flag: "g-1", sub_type: "invite", approve: true } },
    ]);
    expect(recorded.map((r) => [r.kind, r.policy, r.outcome])).toEqual([
      ["friend", "approve", "approved"],
      ["group", "approve", "approved"],
    ]);
  });

  it("approve: a join request, a denied user, a group outside the allow list and private chats off stay with the operator", async () => {
    const { calls, recorded, handle } = setup({
      requests: "approve",
      users: { deny: ["20001"] },
      groups: { allow: ["39999"] },
    });
    await handle(join);
    await handle(friend);
    await handle(invite);
    const privateOff = setup({ requests: "approve", private: false });
    await privateOff.handle(friend);
    expect([...calls, ...privateOff.calls]).toEqual([]);
    expect([...recorded, ...privateOff.recorded].map((r) => [r.outcome, r.detail])).toEqual([
      ["pending", "a request to join a group is left to the group's admins"],
      ["pending", "private chats with 20001 are not served (denied)"],
      ["pending", "group 30001 is not served (not_allowed)"],
      ["pending", "private chats with 20001 are not served (private_off)"],
    ]);
  });

  it("approve: an approval the implementation refuses is recorded as failed, with its answer", async () => {
    const refused = new OneBotActionError("set_friend_add_request", "failed", "No such request (retcode 100)", 100);
    const { recorded, handle } = setup({ requests: "approve" }, refused);
    await handle(friend);
    expect(recorded).toEqual([expect.objectContaining({ outcome: "failed", detail: "No such request (retcode 100)" })]);
  });

  it("keeps a stranger's long comment short", async () => {
    const { recorded, handle } = setup({ requests: "notify" });
    await handle({ ...friend, comment: "长".repeat(5_000) });
    expect(recorded[0].comment).toHaveLength(500);
  });
});

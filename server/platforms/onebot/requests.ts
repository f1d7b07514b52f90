// Friend requests and group invitations (OneBot 11 event/request.md) under the operator's policy,
// platforms.onebot.requests: "ignore" leaves them to QQ (nothing recorded); "notify" records each as a
// platform.request event (the platform stream, the Platforms page); "approve" also accepts, through
// set_friend_add_request / set_group_add_request (api/public.md), a friend request from a user the bot
// serves in private and an invitation into a group it serves. Everything else under "approve" is only
// recorded, saying why: someone asking to join a group the bot administers is the group's admins' call,
// and a user or group the audience (allow/deny, private) excludes is not taken on.
import { PLATFORM_STREAM_ID } from "../../../lib/api/schemas";
import type { OneBotConfig } from "../../../lib/config/schema";
import type { PlatformRequestData } from "../../../lib/events/schemas";
import type { OneBotRequestEvent } from "../../../lib/platforms/onebot";
import type { PlatformRequest } from "../../../lib/platforms/status";
import { lastSeqOf, type EventLedger } from "../../monitor/ledger";
import type { OneBotApi } from "./api";
import { audienceOf } from "./audience";

/** A requester's words kept (the rest is cut: it is shown, never acted on). */
const MAX_COMMENT = 500;

/** The Platforms page lists this many requests… */
const RECENT_REQUESTS = 20;
/** …found among this many of the platform stream's newest events (connections come and go there too). */
const RECENT_WINDOW = 1_000;

export interface RequestDeps {
  config(): OneBotConfig;
  /** Records a platform.request event. */
  record(data: PlatformRequestData): void;
}

/** Acts on one request event by the policy; resolves once recorded. Rejects only when the record fails. */
export async function handleRequest(event: OneBotRequestEvent, api: OneBotApi, deps: RequestDeps): Promise<void> {
  const config = deps.config();
  const policy = config.requests;
  if (policy === "ignore") return;
  const base = {
    platform: "onebot",
    selfId: event.self_id,
    kind: event.request_type,
    ...(event.sub_type ? { subType: event.sub_type } : {}),
    userId: event.user_id,
    ...(event.group_id ? { groupId: event.group_id } : {}),
    comment: event.comment.slice(0, MAX_COMMENT),
    flag: event.flag,
    policy,
  } as const;
  if (policy === "notify") return deps.record({ ...base, outcome: "pending" });
  const refusal = whyNotApproved(event, config);
  if (refusal) return deps.record({ ...base, outcome: "pending", detail: refusal });
  const [action, params] =
    event.request_type === "friend"
      ? (["set_friend_add_request", { flag: event.flag, approve: true }] as const)
      : (["set_group_add_request", { flag: event.flag, sub_type: "invite", approve: true }] as const);
  try {
    await api.call(action, params);
    deps.record({ ...base, outcome: "approved" });
  } catch (e) {
    deps.record({ ...base, outcome: "failed", detail: e instanceof Error ? e.message : String(e) });
  }
}

/** Why "approve" leaves this request to the operator (null: it approves it). */
function whyNotApproved(event: OneBotRequestEvent, config: OneBotConfig): string | null {
  if (event.request_type === "friend") {
    const verdict = audienceOf(config, { kind: "private", peerId: event.user_id });
    return verdict === "serve" ? null : `private chats with ${event.user_id} are not served (${verdict})`;
  }
  if (event.sub_type !== "invite") return "a request to join a group is left to the group's admins";
  if (!event.group_id) return "an invitation without a group";
  const verdict = audienceOf(config, { kind: "group", peerId: event.group_id });
  return verdict === "serve" ? null : `group ${event.group_id} is not served (${verdict})`;
}

/** The newest requests recorded in the platform stream, newest first (the ledger: every node's on a cluster). */
export async function recentRequests(ledger: EventLedger): Promise<PlatformRequest[]> {
  const last = await lastSeqOf(ledger, PLATFORM_STREAM_ID);
  const after = Math.max(0, last - RECENT_WINDOW);
  const events = ledger.readOfTypes
    ? await ledger.readOfTypes(PLATFORM_STREAM_ID, ["platform.request"], after, RECENT_WINDOW)
    : await ledger.read(PLATFORM_STREAM_ID, after, RECENT_WINDOW);
  const requests: PlatformRequest[] = [];
  for (const e of events) if (e.type === "platform.request") requests.push({ ...e.data, at: e.ts });
  return requests.slice(-RECENT_REQUESTS).reverse();
}

// Which chat (and so which session) an inbound OneBot event belongs to: the one rule the inbound mapping
// (inbound.ts) and the transports' per-chat ordering use, and that a cluster node uses, without touching
// any store, to hand the event to that session's owner.
import {
  onebotMessageEventSchema,
  onebotNoticeEventSchema,
  type OneBotEventFrame,
  type OneBotMessageEvent,
  type OneBotNoticeEvent,
} from "../../../lib/platforms/onebot";
import { sessionIdOf, type OneBotChat } from "./session-ids";

/** The chat of a message event: its group, or its private peer; null for a group message without group_id. */
export function chatOfMessage(event: OneBotMessageEvent): OneBotChat | null {
  const selfId = event.self_id;
  if (event.message_type !== "group") return { selfId, kind: "private", peerId: event.user_id };
  return event.group_id === undefined ? null : { selfId, kind: "group", peerId: event.group_id };
}

/** The chat of a notice: a friend recall is the peer's; any notice with a group is the group's; a poke outside one is the poker's. */
export function chatOfNotice(event: OneBotNoticeEvent): OneBotChat | null {
  const { self_id: selfId, notice_type: type, group_id: groupId, user_id: userId } = event;
  if (type === "friend_recall") return userId ? { selfId, kind: "private", peerId: userId } : null;
  if (groupId) return { selfId, kind: "group", peerId: groupId };
  if (type === "notify" && userId) return { selfId, kind: "private", peerId: userId };
  return null;
}

/** The session id of a message or notice event; null for events that concern no chat (handled anywhere). */
export function sessionIdOfEvent(event: OneBotEventFrame): string | null {
  let chat: OneBotChat | null = null;
  if (event.post_type === "message" || event.post_type === "message_sent") {
    const parsed = onebotMessageEventSchema.safeParse(event);
    if (parsed.success) chat = chatOfMessage(parsed.data);
  } else if (event.post_type === "notice") {
    const parsed = onebotNoticeEventSchema.safeParse(event);
    if (parsed.success) chat = chatOfNotice(parsed.data);
  }
  return chat && sessionIdOf(chat);
}

// Which session an inbound OneBot event belongs to, found the way the inbound mapping finds it
// (inbound.ts), without touching any store: a cluster node hands the event to that session's owner.
import {
  onebotMessageEventSchema,
  onebotNoticeEventSchema,
  type OneBotEventFrame,
} from "../../../lib/platforms/onebot";
import { sessionIdOf } from "./session-ids";

/** The session id of a message or notice event; null for events that concern no chat (handled anywhere). */
export function sessionIdOfEvent(event: OneBotEventFrame): string | null {
  const selfId = event.self_id;
  if (event.post_type === "message" || event.post_type === "message_sent") {
    const parsed = onebotMessageEventSchema.safeParse(event);
    if (!parsed.success) return null;
    const { message_type: type, group_id: groupId, user_id: userId } = parsed.data;
    if (type === "group") return groupId === undefined ? null : sessionIdOf({ selfId, kind: "group", peerId: groupId });
    return sessionIdOf({ selfId, kind: "private", peerId: userId });
  }
  if (event.post_type !== "notice") return null;
  const parsed = onebotNoticeEventSchema.safeParse(event);
  if (!parsed.success) return null;
  const { notice_type: type, group_id: groupId, user_id: userId } = parsed.data;
  if (type === "friend_recall") return userId ? sessionIdOf({ selfId, kind: "private", peerId: userId }) : null;
  // A poke outside a group is a private chat's; every other notice with a group (recall, members) is the group's.
  if (groupId) return sessionIdOf({ selfId, kind: "group", peerId: groupId });
  if (type === "notify" && userId) return sessionIdOf({ selfId, kind: "private", peerId: userId });
  return null;
}

// Which chats a bot serves (config platforms.onebot groups / users / private). Decided from the config
// object given on each call, so operators' changes apply to the next event.
import type { OneBotConfig } from "../../../lib/config/schema";
import type { OneBotChat } from "./session-ids";

export type AudienceVerdict = "serve" | "private_off" | "denied" | "not_allowed";

function listVerdict(lists: { allow: readonly string[]; deny: readonly string[] }, id: string): AudienceVerdict {
  if (lists.deny.includes(id)) return "denied";
  if (lists.allow.length > 0 && !lists.allow.includes(id)) return "not_allowed";
  return "serve";
}

/** Deny wins; an empty allow list allows everyone; private chats also need the private switch on. */
export function audienceOf(config: OneBotConfig, chat: Pick<OneBotChat, "kind" | "peerId">): AudienceVerdict {
  if (chat.kind === "group") return listVerdict(config.groups, chat.peerId);
  if (!config.private) return "private_off";
  return listVerdict(config.users, chat.peerId);
}

// Chat session ids of OneBot chats: one per group and one per private peer of each bot account
// (self id), so two bots in one group are two sessions, each with its own identity.
export type OneBotChatKind = "group" | "private";

export interface OneBotChat {
  selfId: string;
  kind: OneBotChatKind;
  /** The group id, or the private peer's user id. */
  peerId: string;
}

/** The platform name sessions of OneBot chats carry (docs/interface.md#platforms: platform "qq"). */
export const ONEBOT_SESSION_PLATFORM = "qq";

const ID = /^qq:(\d+):(group|private):(\d+)$/;

export function sessionIdOf(chat: OneBotChat): string {
  return `qq:${chat.selfId}:${chat.kind}:${chat.peerId}`;
}

/** The chat a session id names; null for sessions of no OneBot chat. */
export function chatOfSessionId(sessionId: string): OneBotChat | null {
  const match = ID.exec(sessionId);
  if (!match) return null;
  return { selfId: match[1], kind: match[2] as OneBotChatKind, peerId: match[3] }; // the regex allows only these two
}

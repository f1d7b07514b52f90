// The name the chat box speaks under, remembered across visits. It is read while the box first
// renders, never in an effect after it: an effect runs after the first paint, and a name typed in
// that moment (a fast operator, a test filling the field) was overwritten by the previous speaker's.
export const CHAT_NAME_KEY = "maisaka.chat.name";
export const DEFAULT_CHAT_NAME = "Operator";

export function savedChatName(storage: Pick<Storage, "getItem"> | undefined): string {
  try {
    return storage?.getItem(CHAT_NAME_KEY)?.trim() || DEFAULT_CHAT_NAME;
  } catch {
    return DEFAULT_CHAT_NAME;
  }
}

export function chatUserId(name: string): string {
  return `dashboard:${name.trim().toLowerCase().replace(/\s+/g, "-").slice(0, 100)}`;
}

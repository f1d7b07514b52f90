// Display names of chat platforms and of platform connection states per locale, the way stage
// names are shown (lib/i18n/stages.ts): Chinese unless told otherwise.
import type { PlatformConnection } from "../platforms/status";
import type { DisplayLocale } from "./stages";

type ConnectionState = PlatformConnection["state"];

const states: Record<DisplayLocale, Record<ConnectionState, string>> = {
  "zh-CN": { connecting: "连接中", open: "在线", closed: "已断开" },
  en: { connecting: "Connecting", open: "Online", closed: "Disconnected" },
};

/** Session platforms that name a real chat (the others are the dashboard, the API or tests). */
const chatPlatforms: Record<string, string> = { qq: "QQ", onebot: "OneBot" };

export function connectionStateLabel(state: ConnectionState, locale: DisplayLocale = "zh-CN"): string {
  return states[locale][state];
}

/** The badge text of a real chat platform ("qq" → "QQ"), or null for local sessions. */
export function chatPlatformLabel(platform: string | null | undefined): string | null {
  if (!platform) return null;
  return Object.hasOwn(chatPlatforms, platform) ? chatPlatforms[platform] : null;
}

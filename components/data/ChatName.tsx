"use client";
// The chat a record of the bot's data belongs to, by its session's name ("all chats" for none). Rows
// of one chat share the lookup (a query per session id, cached).
import { useLocale } from "../../lib/client/react/use-locale";
import { useSessionNames } from "../../lib/client/react/use-session-names";
import { dataTexts } from "../../lib/i18n/data";
import { SessionName } from "../sessions/SessionName";

export function ChatName({ sessionId }: { sessionId: string | null }) {
  const { locale } = useLocale();
  const session = useSessionNames([sessionId]).get(sessionId ?? "");
  if (!sessionId) return <span className="muted">{dataTexts(locale).allChats}</span>;
  return <SessionName id={sessionId} session={session} />;
}

// How a session is named wherever a person reads it: its name, and a short detail that tells apart
// sessions of the same name (the chat's number for a platform chat, else the tail of its id; the time
// a re-run or fork was made). The full id, platform and creation time go in the title.
import { formatDateTime, shortId } from "./format";

export interface SessionLabelSource {
  id: string;
  name: string;
  platform: string;
  groupId: string | null;
  userId: string | null;
  createdAt: number;
  origin?: { kind: string };
}

export interface SessionLabel {
  name: string;
  /** Empty when the name is the id itself (nothing more to tell). */
  detail: string;
  title: string;
}

/** `session` unknown (deleted, or not loaded yet): the id is all there is. */
export function sessionLabel(id: string, session?: SessionLabelSource | null): SessionLabel {
  if (!session) return { name: id, detail: "", title: id };
  const name = session.name.trim() || id;
  // A dashboard's group chat is its own group (groupId is the session id): its id's tail then.
  const chat = session.groupId ?? session.userId;
  const made = formatDateTime(session.createdAt);
  const parts = [shortId(chat && chat !== id ? chat : id)];
  if (session.origin) parts.push(made.slice(5, 16));
  return {
    name,
    detail: name === id ? "" : parts.join(" · "),
    title: [id, session.platform, made].join(" · "),
  };
}

/** One line of text (a select's option, a chart legend). */
export function sessionLabelText(id: string, session?: SessionLabelSource | null): string {
  const label = sessionLabel(id, session);
  return label.detail ? `${label.name} (${label.detail})` : label.name;
}

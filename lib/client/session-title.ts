// The name a session is shown under: its stored name, else the name its recording started with,
// else its id (the id is always shown beside it as the secondary line).
import type { Timeline } from "./timeline";

export function sessionTitle(
  sessionId: string,
  session: { name?: string | null } | undefined,
  timeline: Pick<Timeline, "events"> | undefined,
): string {
  if (session?.name) return session.name;
  const start = timeline?.events.find((e) => e.type === "session.start");
  return (start?.type === "session.start" && start.data.sessionName) || sessionId;
}

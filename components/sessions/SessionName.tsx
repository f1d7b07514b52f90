"use client";
// A session as a person reads it: its name, then a muted detail that tells same-named sessions apart
// (lib/client/session-label.ts); the full id in the title. A link to its live view when `href` is set.
import Link from "next/link";
import { sessionLabel, type SessionLabelSource } from "../../lib/client/session-label";

export function SessionName({
  id,
  session,
  href,
}: {
  id: string;
  /** Its summary when known (absent: shown by id). */
  session?: SessionLabelSource | null;
  href?: string;
}) {
  const label = sessionLabel(id, session);
  const name = href ? <Link href={href}>{label.name}</Link> : label.name;
  return (
    <span className="session-name ellipsis" title={label.title} data-testid="session-name" data-session-id={id}>
      {name}
      {label.detail && <span className="muted small mono"> · {label.detail}</span>}
    </span>
  );
}

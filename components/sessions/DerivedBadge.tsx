"use client";
import type { SessionOrigin } from "../../lib/rerun/schemas";
import { useT } from "../../lib/client/react/use-locale";
import { Badge } from "../ui/Badge";

/** Marks a re-run or what-if fork of another session (its replay says of which, and how it diverged). */
export function DerivedBadge({ origin }: { origin: SessionOrigin }) {
  const t = useT();
  return (
    <Badge tone={origin.kind === "fork" ? "accent" : "info"} title={origin.sessionId} testId="derived-badge">
      {t(`rerun.kind.${origin.kind}`)}
    </Badge>
  );
}

import { useT } from "../../lib/client/react/use-locale";
import type { MessageKey } from "../../lib/i18n/messages";
import type { EntryStatus } from "../../lib/rerun/diff";
import { Badge, type Tone } from "../ui/Badge";

const TONES: Record<EntryStatus, Tone> = { same: "muted", changed: "warn", added: "ok", removed: "bad" };

export function StatusBadge({ status }: { status: EntryStatus }) {
  const t = useT();
  return (
    <Badge tone={TONES[status]} testId="diff-status">
      {t(`diff.status.${status}` as MessageKey)}
    </Badge>
  );
}

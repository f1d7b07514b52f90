"use client";
import { useT } from "../../lib/client/react/use-locale";
import { Badge } from "../ui/Badge";

/** Marks a session imported from an export bundle: read-only, never run. */
export function ImportedBadge() {
  const t = useT();
  return (
    <Badge tone="info" title={t("transfer.importedTitle")} testId="imported-badge">
      {t("transfer.imported")}
    </Badge>
  );
}

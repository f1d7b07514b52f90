// Every MCP hint with its effective value: solid when the provider set it, dashed when the spec
// default applies; plus audience and priority.
import { describePriority, resolveHints } from "../../lib/client/annotations";
import { useT } from "../../lib/client/react/use-locale";
import type { ToolAnnotation } from "../../lib/tools/schemas";
import { Badge } from "../ui/Badge";

const TONE = { safe: "ok", caution: "warn", neutral: "neutral" } as const;

export function AnnotationBadges({ annotation }: { annotation: ToolAnnotation | undefined }) {
  const t = useT();
  const hints = resolveHints(annotation, t);
  const priority = describePriority(annotation, t);
  const audience = annotation?.audience ?? [];
  return (
    <div className="hints" data-testid="annotation-badges">
      {hints.map((h) => (
        <span key={h.key} className={h.applicable ? undefined : "hint-na"} data-hint={h.key} data-explicit={h.explicit}>
          <Badge
            tone={h.applicable ? TONE[h.tone] : "muted"}
            dashed={!h.explicit}
            title={`${h.key}: ${h.value}${t(h.explicit ? "hints.set" : "hints.defaulted")}${h.applicable ? "" : t("hints.na")}. ${h.explanation}`}
          >
            {h.label}
            {!h.explicit && <span className="hint-default">{t("hints.default")}</span>}
          </Badge>
        </span>
      ))}
      {audience.length > 0 && (
        <Badge tone="info" title={t("hints.audienceTitle")}>
          {t("hints.audience", { who: audience.join(", ") })}
        </Badge>
      )}
      {priority && (
        <Badge tone="info" title={t("hints.priorityTitle")}>
          {t("hints.priority", { value: priority })}
        </Badge>
      )}
    </div>
  );
}

// Every MCP hint with its effective value: solid when the provider set it, dashed when the spec
// default applies; plus audience and priority.
import { describePriority, resolveHints } from "../../lib/client/annotations";
import type { ToolAnnotation } from "../../lib/tools/schemas";
import { Badge } from "../ui/Badge";

const TONE = { safe: "ok", caution: "warn", neutral: "neutral" } as const;

export function AnnotationBadges({ annotation }: { annotation: ToolAnnotation | undefined }) {
  const hints = resolveHints(annotation);
  const priority = describePriority(annotation);
  const audience = annotation?.audience ?? [];
  return (
    <div className="hints" data-testid="annotation-badges">
      {hints.map((h) => (
        <span key={h.key} className={h.applicable ? undefined : "hint-na"} data-hint={h.key} data-explicit={h.explicit}>
          <Badge
            tone={h.applicable ? TONE[h.tone] : "muted"}
            dashed={!h.explicit}
            title={`${h.key}: ${h.value}${h.explicit ? " (set by the provider)" : " (spec default: the provider did not say)"}${h.applicable ? "" : " — does not apply to a read-only tool"}. ${h.explanation}`}
          >
            {h.label}
            {!h.explicit && <span className="hint-default"> default</span>}
          </Badge>
        </span>
      ))}
      {audience.length > 0 && (
        <Badge tone="info" title="Who the tool's output is meant for (MCP audience)">
          for {audience.join(", ")}
        </Badge>
      )}
      {priority && (
        <Badge tone="info" title="MCP priority, 0 (least) to 1 (most important)">
          priority {priority}
        </Badge>
      )}
    </div>
  );
}

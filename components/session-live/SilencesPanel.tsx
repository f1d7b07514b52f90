"use client";
// The stretches the bot stayed quiet in this session, newest first, with why and how long. Walking
// every event is kept off the hot path: the list is computed only while the panel is open, twice a
// second at most while events stream in.
import { useMemo, useState } from "react";
import { formatClock, formatDuration } from "../../lib/client/format";
import { useNow } from "../../lib/client/react/use-now";
import { useThrottled } from "../../lib/client/react/use-throttled";
import { silenceCauseLabel, silences, type SilenceCause } from "../../lib/events/silences";
import type { Timeline } from "../../lib/client/timeline";

const SHOWN = 50;

export function SilencesPanel({ timeline, live }: { timeline: Timeline; live: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="panel" aria-label="Silences" data-testid="silences-panel">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary className="panel-title">Silences</summary>
        {open && <SilenceList timeline={timeline} live={live} />}
      </details>
    </section>
  );
}

function SilenceList({ timeline, live }: { timeline: Timeline; live: boolean }) {
  const events = useThrottled(timeline.events, 500);
  const now = useNow();
  // The walk runs per event batch; only the open stretch's length follows the clock.
  const list = useMemo(() => silences(events, events.at(-1)?.ts ?? 0).reverse(), [events]);
  const at = live && now > 0 ? now : null;
  if (!list.length) return <div className="muted small">The bot has answered every message so far.</div>;
  return (
    <ol className="stage-history" data-testid="silences">
      {list.slice(0, SHOWN).map((s) => (
        <li
          key={s.startTs}
          data-testid="silence"
          data-reason={s.reason ?? ""}
          data-ongoing={s.endTs === null || undefined}
        >
          <span className="mono muted">{formatClock(s.startTs)}</span>{" "}
          <span className="mono">
            {formatDuration(s.endTs === null && at !== null ? Math.max(s.durationMs, at - s.startTs) : s.durationMs)}
          </span>
          {s.endTs === null && <span className="muted"> (ongoing)</span>} · {silenceCauseLabel(s.reason)}
          <span className="muted">
            {" "}
            · {s.messages} {s.messages === 1 ? "message" : "messages"}
            {causesText(s.causes)}
          </span>
        </li>
      ))}
      {list.length > SHOWN && <li className="muted">{list.length - SHOWN} earlier</li>}
    </ol>
  );
}

function causesText(causes: Partial<Record<SilenceCause, number>>): string {
  const parts = Object.entries(causes).map(([cause, n]) => `${silenceCauseLabel(cause as SilenceCause)} ×${n}`); // keys are SilenceCause
  return parts.length > 1 ? ` (${parts.join(", ")})` : "";
}

"use client";
// The stretches the bot stayed quiet in this session, newest first, with why and how long. Walking
// every event is kept off the hot path: the list is computed only while the panel is open, twice a
// second at most while events stream in.
import { useMemo, useState } from "react";
import { formatClock, formatDuration } from "../../lib/client/format";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import { useThrottled } from "../../lib/client/react/use-throttled";
import { silences, type SilenceCause } from "../../lib/events/silences";
import { silenceReasonLabel } from "../../lib/i18n/analytics";
import type { DisplayLocale } from "../../lib/i18n/stages";
import type { Timeline } from "../../lib/client/timeline";

const SHOWN = 50;

export function SilencesPanel({ timeline, live }: { timeline: Timeline; live: boolean }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <section className="panel" aria-label={t("silences.title")} data-testid="silences-panel">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary className="panel-title">{t("silences.title")}</summary>
        {open && <SilenceList timeline={timeline} live={live} />}
      </details>
    </section>
  );
}

function SilenceList({ timeline, live }: { timeline: Timeline; live: boolean }) {
  const t = useT();
  const { locale } = useLocale();
  const events = useThrottled(timeline.events, 500);
  const now = useNow();
  // The walk runs per event batch; only the open stretch's length follows the clock.
  const list = useMemo(() => silences(events, events.at(-1)?.ts ?? 0).reverse(), [events]);
  const at = live && now > 0 ? now : null;
  if (!list.length) return <div className="muted small">{t("silences.none")}</div>;
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
          {s.endTs === null && <span className="muted">{t("silences.ongoing")}</span>} ·{" "}
          {silenceReasonLabel(s.reason ?? "none", locale)}
          <span className="muted">
            {" "}
            · {t("silences.messages", { count: s.messages })}
            {causesText(s.causes, locale)}
          </span>
        </li>
      ))}
      {list.length > SHOWN && <li className="muted">{t("silences.earlier", { count: list.length - SHOWN })}</li>}
    </ol>
  );
}

function causesText(causes: Partial<Record<SilenceCause, number>>, locale: DisplayLocale): string {
  const parts = Object.entries(causes).map(([cause, n]) => `${silenceReasonLabel(cause, locale)} ×${n}`);
  return parts.length > 1 ? ` (${parts.join(", ")})` : "";
}

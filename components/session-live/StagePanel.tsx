"use client";
// What the engine is doing now: stage, detail, round, agent state and how long it has been at it.
import { formatClock, formatDuration } from "../../lib/client/format";
import { describePending, pendingRemaining } from "../../lib/client/pending";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import type { Timeline } from "../../lib/client/timeline";
import { stageLabel } from "../../lib/i18n/stages";
import { StageBadge } from "../sessions/StageBadge";

export function StagePanel({
  timeline,
  live,
  waitDeadline: loadedDeadline = null,
}: {
  timeline: Timeline;
  live: boolean;
  /** The wait's deadline known from elsewhere (the session's status) when the events held lack it. */
  waitDeadline?: number | null;
}) {
  const now = useNow();
  const stage = timeline.stage;
  const waitDeadline = timeline.waitDeadline ?? loadedDeadline;
  const recent = timeline.recentStages;
  const { locale } = useLocale();
  const t = useT();
  return (
    <section className="panel stage-panel" aria-label={t("stage.panel")} data-testid="stage-panel">
      <div className="panel-title">{t("live.now")}</div>
      {stage ? (
        <>
          <StageBadge agentState={stage.data.agentState} stage={stage.data.stage} roundText={stage.data.roundText} />
          {stage.data.detail && <div className="text small">{stage.data.detail}</div>}
          {timeline.lastPending && (
            <div className="small" data-testid="pending-now" data-reason={timeline.lastPending.data.reason}>
              {t("stage.waiting", { count: timeline.lastPending.data.pending })}
              {describePending(
                timeline.lastPending.data,
                pendingRemaining(timeline.lastPending, live && now > 0 ? now : timeline.lastPending.ts),
                t,
              )}
            </div>
          )}
          {stage.data.agentState === "wait" && waitDeadline !== null && (
            <div className="small" data-testid="wait-countdown">
              {t("stage.waitEnds", { time: formatClock(waitDeadline) })}
              {live && now > 0 && t("stage.in", { duration: formatDuration(Math.max(0, waitDeadline - now)) })}
            </div>
          )}
          <div className="muted small">
            {t("live.since", { time: formatClock(stage.data.stageStartedAt) })}
            {live && now > 0 && ` · ${formatDuration(Math.max(0, now - stage.data.stageStartedAt))}`}
          </div>
          {recent.length > 1 && (
            <ol className="stage-history">
              {recent
                .slice(0, -1)
                .reverse()
                .map((s, i, arr) => {
                  const next = i === 0 ? stage : arr[i - 1];
                  const took = next.data.stageStartedAt - s.data.stageStartedAt;
                  return (
                    <li key={s.seq}>
                      <span className="mono muted">{formatClock(s.data.stageStartedAt)}</span>{" "}
                      {stageLabel(s.data.stage, locale)}
                      {s.data.detail && <span className="muted"> · {s.data.detail}</span>}
                      {took >= 0 && <span className="mono muted"> {formatDuration(took)}</span>}
                    </li>
                  );
                })}
            </ol>
          )}
        </>
      ) : (
        <div className="muted small">{t("live.noStage")}</div>
      )}
    </section>
  );
}

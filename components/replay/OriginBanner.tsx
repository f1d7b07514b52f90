"use client";
// On a derived session's replay: what it is a re-run or fork of (from which cycle), its edits and
// settings, and its first divergence from the original (expected against actual, as text) with links to
// the diff of the two cycles and to the original at that cycle.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { api } from "../../lib/client/api";
import { formatClock, formatDuration } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import {
  cycleNumber,
  divergenceDiffHref,
  editPhrase,
  replayHref,
  settingsPhrases,
  valueText,
} from "../../lib/client/rerun-view";
import type { Timeline } from "../../lib/client/timeline";
import type { Divergence, SessionOrigin } from "../../lib/rerun/schemas";
import { Badge } from "../ui/Badge";

/** Reproduced, diverged (where), or still running. */
export function DivergenceBadge({ origin }: { origin: SessionOrigin }) {
  const t = useT();
  if (origin.divergence === undefined) return <Badge tone="info">{t("rerun.status.running")}</Badge>;
  if (origin.divergence === null)
    return (
      <Badge tone="ok" testId="divergence-none">
        {t("rerun.reproduced")}
      </Badge>
    );
  return (
    <Badge tone="warn" testId="divergence-kind">
      {t("rerun.divergedAt", {
        n: origin.divergence.cycleIndex + 1,
        kind: t(`rerun.divergence.${origin.divergence.kind}`),
      })}
    </Badge>
  );
}

export function OriginBanner({
  sessionId,
  origin,
  timeline,
}: {
  sessionId: string;
  origin: SessionOrigin;
  /** This session's own recording: it replayed the original's cycles up to the fork, under the same ids. */
  timeline: Pick<Timeline, "items"> | null;
}) {
  const queryClient = useQueryClient();
  const original = useQuery({
    queryKey: queryKeys.session(origin.sessionId),
    queryFn: () => api.session(origin.sessionId),
    retry: false,
  });
  // The original's recording when it is at hand (opened from its replay), else this one's.
  const originalTimeline = queryClient.getQueryData<Timeline>(queryKeys.timeline(origin.sessionId)) ?? null;
  const fromCycleNumber = cycleNumber(originalTimeline, origin.fromCycle) ?? cycleNumber(timeline, origin.fromCycle);
  return (
    <OriginView
      sessionId={sessionId}
      origin={origin}
      originName={original.data?.name || origin.sessionId}
      fromCycleNumber={fromCycleNumber}
    />
  );
}

export function OriginView({
  sessionId,
  origin,
  originName,
  fromCycleNumber,
}: {
  sessionId: string;
  origin: SessionOrigin;
  originName: string;
  fromCycleNumber: number | null;
}) {
  const t = useT();
  const settings = settingsPhrases(origin.settings);
  const from = origin.fromCycle
    ? fromCycleNumber !== null
      ? t("rerun.fromCycleN", { n: fromCycleNumber, cycle: origin.fromCycle })
      : t("rerun.fromCycleId", { cycle: origin.fromCycle })
    : t("rerun.wholeSession");
  return (
    <section
      className={`origin-banner origin-${origin.divergence ? "diverged" : "same"}`}
      aria-label={t("rerun.originLabel")}
      data-testid="origin-banner"
      data-kind={origin.kind}
    >
      <div className="origin-head">
        <Badge tone={origin.kind === "fork" ? "accent" : "info"}>{t(`rerun.kind.${origin.kind}`)}</Badge>
        <span>
          {t("rerun.of")}{" "}
          <Link href={replayHref(origin.sessionId, origin.fromCycle)} data-testid="origin-link">
            {originName}
          </Link>{" "}
          · {from}
        </span>
        <span className="muted small">
          {t("rerun.startedBy", { actor: origin.actor, at: formatClock(origin.at) })} ·{" "}
          {t("rerun.continuedWith", { with: t(`rerun.continueWith.${origin.continueWith}`) })}
        </span>
        <span className="grow" />
        <DivergenceBadge origin={origin} />
      </div>
      {(origin.edits.length > 0 || settings.length > 0) && (
        <ul className="origin-changes small" data-testid="origin-changes">
          {origin.edits.map((e, i) => {
            const p = editPhrase(e);
            return <li key={`e${i}`}>{t(p.key, p.vars)}</li>;
          })}
          {settings.map((p, i) => (
            <li key={`s${i}`}>{t(p.key, p.vars)}</li>
          ))}
        </ul>
      )}
      {origin.stats && (
        <div className="muted small mono" data-testid="origin-stats">
          {t("rerun.stats", {
            original: origin.stats.originalCycles,
            rerun: origin.stats.rerunCycles,
            replayed: origin.stats.replayedCalls,
            live: origin.stats.liveCalls,
            replayedTools: origin.stats.replayedTools,
            liveTools: origin.stats.liveTools,
            engineSteps: origin.stats.engineSteps,
            duration: formatDuration(origin.stats.durationMs),
          })}
        </div>
      )}
      {origin.divergence && (
        <DivergenceView originSessionId={origin.sessionId} sessionId={sessionId} divergence={origin.divergence} />
      )}
    </section>
  );
}

function DivergenceView({
  originSessionId,
  sessionId,
  divergence: d,
}: {
  originSessionId: string;
  sessionId: string;
  divergence: Divergence;
}) {
  const t = useT();
  return (
    <div className="divergence" data-testid="divergence">
      <div className="divergence-head">
        <strong>{t("rerun.firstDivergence", { n: d.cycleIndex + 1 })}</strong>
        <Badge tone="warn">{t(`rerun.divergence.${d.kind}`)}</Badge>
        {d.task && <span className="mono small">{d.task}</span>}
        {d.path && (
          <span className="mono small" data-testid="divergence-path">
            {d.path}
          </span>
        )}
        <span className="grow" />
        <Link
          className="btn btn-sm"
          href={divergenceDiffHref(originSessionId, sessionId, d)}
          data-testid="divergence-diff"
        >
          {t("rerun.openDiff")}
        </Link>
        {d.cycleId && (
          <Link className="btn btn-sm" href={replayHref(originSessionId, d.cycleId)} data-testid="divergence-original">
            {t("rerun.openOriginal")}
          </Link>
        )}
      </div>
      <ExpectedActual expected={d.expected} actual={d.actual} />
      {d.consequence && (
        <div className="divergence-consequence">
          <div className="small">
            {t("rerun.consequence")} <Badge tone="warn">{t(`rerun.divergence.${d.consequence.kind}`)}</Badge>
          </div>
          <ExpectedActual expected={d.consequence.expected} actual={d.consequence.actual} />
        </div>
      )}
    </div>
  );
}

/** Untrusted recorded values: always text in a <pre>, never markup. */
function ExpectedActual({ expected, actual }: { expected: unknown; actual: unknown }) {
  const t = useT();
  return (
    <div className="expected-actual">
      <div>
        <div className="muted small">{t("rerun.expected")}</div>
        <pre className="mono small" data-testid="divergence-expected">
          {valueText(expected)}
        </pre>
      </div>
      <div>
        <div className="muted small">{t("rerun.actual")}</div>
        <pre className="mono small" data-testid="divergence-actual">
          {valueText(actual)}
        </pre>
      </div>
    </div>
  );
}

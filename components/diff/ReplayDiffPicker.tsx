"use client";
// The replay's way into /diff: the cycle at the playhead diffed with another cycle of the session
// (a list), or marked and diffed with a cycle opened later in any session (the mark stays in this
// browser tab); with a mark from another session, the two sessions too.
import Link from "next/link";
import { memo, useEffect, useMemo, useState } from "react";
import type { MonitorEvent } from "../../lib/events/schemas";
import { useT } from "../../lib/client/react/use-locale";
import { diffHref, formatDiffRef, parseDiffRef, type DiffRef } from "../../lib/rerun/diff-api";

const MARK_KEY = "maisaka.diff.mark";

function readMark(): DiffRef | null {
  const text = typeof window === "undefined" ? null : window.sessionStorage.getItem(MARK_KEY);
  return text ? parseDiffRef(text) : null;
}

/**
 * Memoised: the replay redraws on every playhead move, the picker only when the cycle changes. The
 * list's options (one per cycle: 9,678 in a 100,000-event recording) exist only while the list has
 * the focus: rendered with the playhead, they took a quarter of a second each time the cycle
 * changed, and the browser measures every option again whenever the list is laid out.
 */
export const ReplayDiffPicker = memo(function ReplayDiffPicker({
  sessionId,
  events,
  currentCycleId,
}: {
  sessionId: string;
  events: readonly MonitorEvent[];
  currentCycleId: string | null;
}) {
  const t = useT();
  const [mark, setMark] = useState<DiffRef | null>(null);
  const [listing, setListing] = useState(false);
  useEffect(() => setMark(readMark()), []);
  const cycles = useMemo(() => events.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : [])), [events]);
  if (!currentCycleId) {
    // The list goes (and its focus with it): it must not come back with every option rendered.
    if (listing) setListing(false);
    return <span className="small muted">{t("diff.replay.noCycle")}</span>;
  }
  const here: DiffRef = { sessionId, cycleId: currentCycleId };
  const markIsHere = mark !== null && formatDiffRef(mark) === formatDiffRef(here);
  return (
    <span className="diff-picker" role="group" aria-label={t("diff.replay.label")} data-testid="replay-diff">
      <select
        className="input input-sm"
        aria-label={t("diff.replay.with")}
        title={t("diff.replay.withHint")}
        value=""
        // A plain navigation: the picker also renders outside the app router (the replay's static render).
        onChange={(e) =>
          e.target.value && window.location.assign(diffHref(here, { sessionId, cycleId: e.target.value }))
        }
        // Before the browser opens the list (a pointer press focuses, then opens it; keys need the focus).
        onPointerDown={() => setListing(true)}
        onFocus={() => setListing(true)}
        onBlur={() => setListing(false)}
        data-testid="replay-diff-with"
      >
        <option value="">{t("diff.replay.with")}</option>
        {listing &&
          cycles.map((id, i) =>
            id === currentCycleId ? null : (
              <option key={`${id}#${i}`} value={id}>
                {t("diff.replay.option", { index: i + 1, cycleId: id })}
              </option>
            ),
          )}
      </select>
      <button
        className="btn btn-sm"
        title={t("diff.replay.markTitle")}
        aria-pressed={markIsHere}
        onClick={() => {
          window.sessionStorage.setItem(MARK_KEY, formatDiffRef(here));
          setMark(here);
        }}
        data-testid="replay-diff-mark"
      >
        {t("diff.replay.mark")}
      </button>
      {mark && !markIsHere && (
        <Link className="btn btn-sm" href={diffHref(mark, here)} data-testid="replay-diff-marked">
          {t("diff.replay.withMarked", { ref: formatDiffRef(mark) })}
        </Link>
      )}
      {mark && mark.sessionId !== sessionId && (
        <Link className="btn btn-sm" href={diffHref({ sessionId: mark.sessionId }, { sessionId })}>
          {t("diff.replay.sessions")}
        </Link>
      )}
    </span>
  );
});

"use client";
// The search results' way into /diff: two hits that name a cycle are chosen ("compare"), then their
// cycles are diffed. Choosing a third drops the oldest choice.
import Link from "next/link";
import { useState } from "react";
import type { SearchHit } from "../../lib/api/search";
import { useT } from "../../lib/client/react/use-locale";
import { diffHref, formatDiffRef, type DiffRef } from "../../lib/rerun/diff-api";

export function useCompare() {
  const [chosen, setChosen] = useState<DiffRef[]>([]);
  const has = (ref: DiffRef) => chosen.some((c) => formatDiffRef(c) === formatDiffRef(ref));
  return {
    chosen,
    has,
    toggle: (ref: DiffRef) =>
      setChosen((prev) =>
        prev.some((c) => formatDiffRef(c) === formatDiffRef(ref))
          ? prev.filter((c) => formatDiffRef(c) !== formatDiffRef(ref))
          : [...prev, ref].slice(-2),
      ),
    clear: () => setChosen([]),
  };
}
type Compare = ReturnType<typeof useCompare>;

export function CompareToggle({ compare, hit }: { compare: Compare; hit: SearchHit }) {
  const t = useT();
  if (!hit.cycleId) return null;
  const ref = { sessionId: hit.sessionId, cycleId: hit.cycleId };
  return (
    <label className="check small" title={t("diff.search.compareTitle")}>
      <input
        type="checkbox"
        checked={compare.has(ref)}
        onChange={() => compare.toggle(ref)}
        data-testid="search-compare"
      />{" "}
      {t("diff.search.compare")}
    </label>
  );
}

export function CompareBar({ compare }: { compare: Compare }) {
  const t = useT();
  const [a, b] = compare.chosen;
  if (!a) return null;
  return (
    <div className="toolbar small" data-testid="search-compare-bar">
      <span>{t("diff.search.chosen", { count: compare.chosen.length })}</span>
      {compare.chosen.map((c) => (
        <span key={formatDiffRef(c)} className="mono badge">
          {formatDiffRef(c)}
        </span>
      ))}
      {b && (
        <Link className="btn btn-sm btn-primary" href={diffHref(a, b)} data-testid="search-compare-open">
          {t("diff.search.open")}
        </Link>
      )}
      <button className="btn btn-sm" onClick={compare.clear}>
        {t("diff.search.clear")}
      </button>
    </div>
  );
}

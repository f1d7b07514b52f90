"use client";
// Two cycles side by side, section by section (lib/rerun/diff.ts): changed sections open, the same
// ones collapsed; each entry's row is marked same / changed / only in A / only in B, changed words
// inside. Keys: n / p go to the next / previous difference (opening its section), d shows only
// differences, e expands or collapses every section.
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { formatDateTime } from "../../lib/client/format";
import { useT } from "../../lib/client/react/use-locale";
import { useSessionNames } from "../../lib/client/react/use-session-names";
import type { MessageKey } from "../../lib/i18n/messages";
import type { CycleDiff, DiffEntry, DiffSection, FirstDifference, SectionId } from "../../lib/rerun/diff";
import { SessionName } from "../sessions/SessionName";
import { DiffText } from "./DiffText";
import { StatusBadge } from "./StatusBadge";

type Side = CycleDiff["a"];

const entryId = (section: SectionId, index: number) => `diff-${section}-${index}`;

export function CycleDiffView({ diff }: { diff: CycleDiff }) {
  const t = useT();
  const [onlyDiffs, setOnlyDiffs] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<SectionId>>(
    () => new Set(diff.sections.filter((s) => s.status === "changed" && s.counted).map((s) => s.id)),
  );
  const differences = useMemo(
    () =>
      diff.sections.flatMap((s) =>
        s.entries.flatMap((e, i) => (e.status === "same" ? [] : [{ section: s.id, index: i }])),
      ),
    [diff],
  );
  const [focus, setFocus] = useState(-1);
  const pending = useRef(false);

  const go = (step: 1 | -1) => {
    if (!differences.length) return;
    const next = (focus + step + differences.length) % differences.length;
    const target = differences[next];
    setOpen((prev) => new Set(prev).add(target.section));
    setFocus(next);
    pending.current = true;
  };
  const toggleAll = () =>
    setOpen((prev) => (prev.size === diff.sections.length ? new Set() : new Set(diff.sections.map((s) => s.id))));

  useEffect(() => {
    if (!pending.current || focus < 0) return;
    pending.current = false;
    const target = differences[focus];
    const el = document.getElementById(entryId(target.section, target.index));
    el?.focus();
    el?.scrollIntoView({ block: "center" });
  }, [focus, differences, open]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (e.metaKey || e.ctrlKey || e.altKey || (el && ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName))) return;
      const actions: Record<string, () => void> = {
        n: () => go(1),
        p: () => go(-1),
        d: () => setOnlyDiffs((v) => !v),
        e: toggleAll,
      };
      const action = actions[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <div className="diff" data-testid="cycle-diff" data-status={diff.status}>
      <div className="diff-sides">
        <SideHead label={t("diff.a")} side={diff.a} />
        <SideHead label={t("diff.b")} side={diff.b} />
      </div>
      <div className="diff-verdict" data-testid="diff-verdict">
        <StatusBadge status={diff.status} />
        {diff.first ? <FirstDiff first={diff.first} /> : <span>{t("diff.verdictSame")}</span>}
      </div>
      <div className="toolbar diff-tools">
        <label className="check">
          <input type="checkbox" checked={onlyDiffs} onChange={(e) => setOnlyDiffs(e.target.checked)} />{" "}
          {t("diff.onlyDiffs")}
        </label>
        <button className="btn btn-sm" onClick={() => go(-1)} disabled={!differences.length}>
          {t("diff.prevDiff")}
        </button>
        <button className="btn btn-sm" onClick={() => go(1)} disabled={!differences.length}>
          {t("diff.nextDiff")}
        </button>
        <button className="btn btn-sm" onClick={toggleAll}>
          {open.size === diff.sections.length ? t("diff.collapseAll") : t("diff.expandAll")}
        </button>
        <span className="grow" />
        <span className="small muted">{t("diff.keys")}</span>
      </div>
      {diff.sections.map((s) => (
        <SectionView
          key={s.id}
          section={s}
          open={open.has(s.id)}
          onlyDiffs={onlyDiffs}
          onToggle={() =>
            setOpen((prev) => {
              const next = new Set(prev);
              if (next.has(s.id)) next.delete(s.id);
              else next.add(s.id);
              return next;
            })
          }
        />
      ))}
    </div>
  );
}

function SideHead({ label, side }: { label: string; side: Side }) {
  const t = useT();
  const session = useSessionNames([side.sessionId]).get(side.sessionId);
  const replay = `/sessions/${encodeURIComponent(side.sessionId)}/replay?cycle=${encodeURIComponent(side.cycleId)}`;
  return (
    <div className="diff-side">
      <strong>{label}</strong> <SessionName id={side.sessionId} session={session} />{" "}
      <span className="mono">{t("diff.cycleSide", { index: side.index + 1, cycleId: side.cycleId })}</span>
      {side.startedAt !== null && <span className="muted small"> · {formatDateTime(side.startedAt)}</span>}
      {!side.complete && <span className="badge badge-warn">{t("diff.incomplete")}</span>}{" "}
      <Link href={replay}>{t("diff.openReplay")}</Link>
    </div>
  );
}

export function FirstDiff({ first }: { first: FirstDifference }) {
  const t = useT();
  return (
    <span className="diff-first">
      {t("diff.verdictFirst")} <strong>{t(`diff.section.${first.section}` as MessageKey)}</strong>{" "}
      <span className="mono">
        {first.key}
        {first.field ? ` · ${first.field}` : ""}
      </span>{" "}
      {first.a !== null && <del className="diff-mark diff-quote">{first.a}</del>}
      {first.a !== null && first.b !== null && " → "}
      {first.b !== null && <ins className="diff-mark diff-quote">{first.b}</ins>}
    </span>
  );
}

function SectionView({
  section,
  open,
  onlyDiffs,
  onToggle,
}: {
  section: DiffSection;
  open: boolean;
  onlyDiffs: boolean;
  onToggle: () => void;
}) {
  const t = useT();
  const counts = { changed: 0, added: 0, removed: 0 };
  for (const e of section.entries) if (e.status !== "same") counts[e.status]++;
  const shown = section.entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => !onlyDiffs || entry.status !== "same");
  return (
    <section
      className={`diff-section diff-section-${section.status}`}
      data-testid={`diff-section-${section.id}`}
      data-status={section.status}
    >
      <h2 className="diff-section-head">
        <button className="diff-toggle" aria-expanded={open} onClick={onToggle}>
          <span aria-hidden="true">{open ? "▾" : "▸"}</span> {t(`diff.section.${section.id}` as MessageKey)}
        </button>
        <StatusBadge status={section.status} />
        <span className="small muted">
          {section.status === "changed"
            ? t("diff.counts", counts)
            : t("diff.entries", { count: section.entries.length })}
          {!section.counted && ` · ${t("diff.notCounted")}`}
        </span>
      </h2>
      {open && (
        <div className="diff-grid" role="table" aria-label={t(`diff.section.${section.id}` as MessageKey)}>
          {section.entries.length === 0 && <div className="muted small pad">{t("diff.emptySection")}</div>}
          {section.entries.length > 0 && shown.length === 0 && (
            <div className="muted small pad">{t("diff.allSame", { count: section.entries.length })}</div>
          )}
          {shown.map(({ entry, index }) => (
            <EntryRow key={index} id={entryId(section.id, index)} entry={entry} />
          ))}
        </div>
      )}
    </section>
  );
}

function EntryRow({ id, entry }: { id: string; entry: DiffEntry }) {
  const t = useT();
  return (
    <div
      className={`diff-row diff-${entry.status}`}
      role="row"
      id={id}
      tabIndex={-1}
      data-testid="diff-entry"
      data-status={entry.status}
    >
      <div className="diff-key mono" role="cell">
        {entry.key}
        {entry.field && <span className="muted"> · {entry.field}</span>}
      </div>
      {(["a", "b"] as const).map((side) => (
        <div key={side} className={`diff-cell diff-cell-${side}`} role="cell" data-testid={`diff-cell-${side}`}>
          {entry[side] === null ? (
            <span className="muted">{t("diff.absent")}</span>
          ) : (
            <DiffText text={entry[side]} parts={entry.parts?.[side]} side={side} />
          )}
        </div>
      ))}
    </div>
  );
}

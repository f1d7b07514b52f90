"use client";
// /search: full text across sessions (GET /api/search), newest first, with filters; each hit opens the
// replay at that event (or the live view). Keyboard: "/" focuses the box, ↑ ↓ choose a hit, Enter opens
// the replay, Shift+Enter the live view. Hits are virtualised; snippets are text with <mark>, never HTML.
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { searchKindSchema, type SearchHit } from "../../lib/api/search";
import { endReasonSchema } from "../../lib/events/schemas";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { useSessionNames } from "../../lib/client/react/use-session-names";
import type { SessionLabelSource } from "../../lib/client/session-label";
import { useThrottled } from "../../lib/client/react/use-throttled";
import type { MessageKey } from "../../lib/i18n/messages";
import { CompareBar, CompareToggle, useCompare } from "../diff/SearchCompare";
import { SessionName } from "../sessions/SessionName";
import { HighlightText } from "../ui/HighlightText";
import { ErrorState, Loading } from "../ui/States";
import { VirtualList, type VirtualListHandle } from "../ui/VirtualList";

const PAGE = 100;
const KINDS = searchKindSchema.options;
const END_REASONS = endReasonSchema.options.flatMap((o) => ("options" in o ? o.options : []));

const EMPTY = { q: "", sessionId: "", kind: "", endReason: "", tool: "", model: "", failed: "", from: "", to: "" };
type Filters = typeof EMPTY;

/** A datetime-local value as epoch ms ("" when empty or invalid). */
function toEpoch(value: string): string {
  const ms = value ? new Date(value).getTime() : Number.NaN;
  return Number.isFinite(ms) ? String(ms) : "";
}

/** The replay at the hit's event; the live view at its cycle (or of its session). */
function hitLinks(hit: Pick<SearchHit, "sessionId" | "seq" | "cycleId">): { replay: string; live: string } {
  const session = `/sessions/${encodeURIComponent(hit.sessionId)}`;
  return {
    replay: `${session}/replay?seq=${hit.seq}`,
    live: hit.cycleId ? `${session}?cycle=${encodeURIComponent(hit.cycleId)}` : session,
  };
}

export function SearchPage() {
  const t = useT();
  const router = useRouter();
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const settled = useThrottled(filters, 250);
  const [selected, setSelected] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<VirtualListHandle>(null);
  const compare = useCompare();
  const query = { ...settled, q: settled.q.trim(), from: toEpoch(settled.from), to: toEpoch(settled.to) };
  const search = useInfiniteQuery({
    queryKey: queryKeys.search(query),
    queryFn: ({ pageParam }) => api.search({ ...query, limit: PAGE, before: pageParam }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next,
    enabled: query.q !== "",
    // While the next query loads, the hits shown stay (and Enter opens the one selected there).
    placeholderData: keepPreviousData,
  });
  // Pages come in the order events were recorded (docs/search.md): the hits loaded are kept in time order.
  const hits = useMemo(
    () => (query.q ? (search.data?.pages.flatMap((p) => p.hits) ?? []).sort((a, b) => b.ts - a.ts) : []),
    [query.q, search.data],
  );
  const names = useSessionNames(useMemo(() => hits.map((h) => h.sessionId), [hits]));
  const behind = search.data?.pages[0]?.behind ?? 0;

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      const tag = (e.target as HTMLElement | null)?.tagName;
      if (e.key === "/" && tag !== "INPUT" && tag !== "TEXTAREA" && tag !== "SELECT") {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const set = (key: keyof Filters) => (e: { target: { value: string } }) => {
    setSelected(0);
    setFilters((f) => ({ ...f, [key]: e.target.value }));
  };
  const choose = (index: number) => {
    const next = Math.max(0, Math.min(hits.length - 1, index));
    setSelected(next);
    list.current?.scrollToIndex(next);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    // From the search box or the hits; the filters' own keys (a select's arrows) stay theirs.
    const target = e.target as HTMLElement;
    if (target !== input.current && !target.closest(".search-results")) return;
    if (target.tagName === "A") return; // a focused link opens itself
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      choose(selected + (e.key === "ArrowDown" ? 1 : -1));
    } else if (e.key === "Enter" && hits[selected]) {
      e.preventDefault();
      const links = hitLinks(hits[selected]);
      router.push(e.shiftKey ? links.live : links.replay);
    }
  };

  return (
    <div className="page page-search" data-testid="search-page" onKeyDown={onKeyDown}>
      <div className="page-head">
        <h1>{t("search.title")}</h1>
        <span className="muted">
          {search.data ? `${t("search.hits", { count: hits.length })}${search.hasNextPage ? " …" : ""}` : ""}
        </span>
      </div>
      <div className="toolbar" role="search" aria-label={t("search.title")}>
        <input
          ref={input}
          className="input search-box"
          type="search"
          autoFocus
          placeholder={t("search.placeholder")}
          aria-label={t("search.title")}
          value={filters.q}
          onChange={set("q")}
          data-testid="search-input"
          maxLength={200}
        />
      </div>
      <div className="toolbar search-filters">
        <input
          className="input input-sm"
          placeholder={t("search.filter.session")}
          aria-label={t("search.filter.session")}
          value={filters.sessionId}
          onChange={set("sessionId")}
        />
        <select
          className="input input-sm"
          aria-label={t("search.filter.kind")}
          value={filters.kind}
          onChange={set("kind")}
        >
          <option value="">{t("search.filter.any")}</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`search.kind.${k}` as MessageKey)}
            </option>
          ))}
        </select>
        <input
          className="input input-sm"
          list="search-end-reasons"
          placeholder={t("search.filter.endReason")}
          aria-label={t("search.filter.endReason")}
          value={filters.endReason}
          onChange={set("endReason")}
        />
        <datalist id="search-end-reasons">
          {END_REASONS.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
        <input
          className="input input-sm"
          placeholder={t("search.filter.tool")}
          aria-label={t("search.filter.tool")}
          value={filters.tool}
          onChange={set("tool")}
        />
        <input
          className="input input-sm"
          placeholder={t("search.filter.model")}
          aria-label={t("search.filter.model")}
          value={filters.model}
          onChange={set("model")}
        />
        <select
          className="input input-sm"
          aria-label={t("search.filter.failed")}
          value={filters.failed}
          onChange={set("failed")}
        >
          <option value="">{t("search.filter.failedAny")}</option>
          <option value="1">{t("search.filter.failedOnly")}</option>
          <option value="0">{t("search.filter.failedNone")}</option>
        </select>
        <label className="small muted">
          {t("search.filter.from")}{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.from}
            onChange={set("from")}
            aria-label={t("search.filter.from")}
          />
        </label>
        <label className="small muted">
          {t("search.filter.to")}{" "}
          <input
            className="input input-sm"
            type="datetime-local"
            value={filters.to}
            onChange={set("to")}
            aria-label={t("search.filter.to")}
          />
        </label>
      </div>
      <p className="small muted">{t("search.hint")}</p>
      {behind > 0 && <p className="small muted">{t("search.behind", { count: behind })}</p>}
      {search.isError && <ErrorState title={t("search.title")} error={search.error} />}
      {search.isLoading && <Loading label="…" />}
      <CompareBar compare={compare} />
      {search.data && (
        <div className="panel search-results">
          <VirtualList
            items={hits}
            handle={list}
            getKey={(h) => `${h.sessionId}#${h.seq}#${h.kind}`}
            estimateSize={() => 64}
            follow={false}
            label={t("search.title")}
            testId="search-hits"
            empty={<div className="muted pad">{t("search.none")}</div>}
            render={(hit, i) => (
              <HitRow
                hit={hit}
                session={names.get(hit.sessionId)}
                selected={i === selected}
                onSelect={() => setSelected(i)}
                compare={compare}
              />
            )}
          />
          {search.hasNextPage && (
            <button
              className="btn btn-sm"
              disabled={search.isFetchingNextPage}
              onClick={() => void search.fetchNextPage()}
              data-testid="search-older"
            >
              {t("search.older")}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

export function HitRow({
  hit,
  session,
  selected,
  onSelect,
  compare,
}: {
  hit: SearchHit;
  /** The hit's session, for its name (absent: not looked up yet, or deleted). */
  session: SessionLabelSource | undefined;
  selected: boolean;
  onSelect: () => void;
  /** Hits with a cycle can be chosen, two at a time, for a cycle diff. */
  compare?: ReturnType<typeof useCompare>;
}) {
  const t = useT();
  const links = hitLinks(hit);
  return (
    <div
      className={`search-hit${selected ? " selected" : ""}`}
      aria-selected={selected}
      role="article"
      onMouseEnter={onSelect}
      data-testid="search-hit"
    >
      <div className="search-hit-head small">
        <span className={`badge search-kind-${hit.kind}`}>{t(`search.kind.${hit.kind}` as MessageKey)}</span>
        {hit.failed && <span className="badge badge-bad">{t("search.failed")}</span>}
        {hit.tool && <span className="mono">{hit.tool}</span>}
        <SessionName id={hit.sessionId} session={session} />
        <span className="muted">
          #{hit.seq} · {formatDateTime(hit.ts)}
          {hit.cycleId ? ` · ${hit.cycleId}` : ""}
        </span>
        <span className="grow" />
        {compare && hit.cycleId && <CompareToggle compare={compare} hit={hit} />}
        <Link href={links.replay}>{t("search.openReplay")}</Link>
        <Link href={links.live}>{t("search.openLive")}</Link>
      </div>
      <div className="search-snippet">
        <HighlightText text={hit.snippet} marks={hit.marks} />
      </div>
    </div>
  );
}

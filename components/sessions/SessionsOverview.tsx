"use client";
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import type { ArchivedFilter, SessionSortField, SessionSummary } from "../../lib/api/schemas";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/client/format";
import { useLiveSessions, type SessionFilters } from "../../lib/client/react/use-live-sessions";
import { useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import { usageSummary } from "../../lib/client/usage";
import { Badge } from "../ui/Badge";
import { EmptyState, ErrorState, Loading } from "../ui/States";
import { ChangeOnly } from "../shell/ChangeOnly";
import { CreateSessionForm } from "./CreateSessionForm";
import { DerivedBadge } from "./DerivedBadge";
import { ImportedBadge } from "./ImportedBadge";
import { ImportSessionButton } from "./ImportSessionButton";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { PlatformBadge } from "./PlatformBadge";
import { SessionActionDialog, type SessionAction } from "./SessionActionDialog";
import { StageBadge } from "./StageBadge";

type Filter = "all" | "running" | "wait" | "stop";
type Order = "asc" | "desc";
interface SortState {
  sort: SessionSortField;
  order: Order;
}
/** Last-activity windows of the filter (ms back from now); "older" is the inverse of a month. */
const ACTIVITY = { any: 0, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, older: 30 * 86_400_000 } as const;
type Activity = keyof typeof ACTIVITY;

/** Typing pauses this long before the list is asked again. */
const SEARCH_DEBOUNCE_MS = 250;

/** The first click on a column sorts it its natural way: names A→Z, the rest largest / newest first. */
const firstOrder = (sort: SessionSortField): Order => (sort === "name" ? "asc" : "desc");

export function SessionsOverview() {
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<Filter>("all");
  const [archived, setArchived] = useState<ArchivedFilter>("exclude");
  const [platform, setPlatform] = useState("");
  const [activity, setActivity] = useState<Activity>("any");
  const [minTokens, setMinTokens] = useState("");
  const [minCost, setMinCost] = useState("");
  const [sort, setSort] = useState<SortState>({ sort: "created", order: "desc" });
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);
  const now = useNow();
  const filtered =
    filter !== "all" ||
    search !== "" ||
    archived !== "exclude" ||
    platform !== "" ||
    activity !== "any" ||
    minTokens !== "" ||
    minCost !== "";
  // The window is fixed when chosen (rounded to the minute), so the list is not asked again every tick.
  const since = activity === "any" || !now ? undefined : Math.floor((now - ACTIVITY[activity]) / 60_000) * 60_000;
  const filters: SessionFilters = {
    q: search || undefined,
    state: filter === "all" ? undefined : filter,
    archived,
    platform: platform.trim() || undefined,
    ...(since === undefined ? {} : activity === "older" ? { activeTo: since } : { activeFrom: since }),
    minTokens: minTokens === "" ? undefined : Number(minTokens),
    minCost: minCost === "" ? undefined : Number(minCost),
    sort: sort.sort,
    order: sort.order,
  };
  // The server filters, sorts and pages (a keyset order: rows never swap places while activity streams
  // in); "Load more" fetches the next page.
  const sessions = useLiveSessions({ filters });
  const onSort = (field: SessionSortField) =>
    setSort((s) =>
      s.sort === field
        ? { sort: field, order: s.order === "asc" ? "desc" : "asc" }
        : { sort: field, order: firstOrder(field) },
    );
  const rows = sessions.data ?? [];
  const t = useT();

  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("sessions.title")}</h1>
        <span className="muted">
          {sessions.data
            ? t(filtered ? "sessions.matching" : "sessions.total", {
                count: `${sessions.data.length}${sessions.hasNextPage ? "+" : ""}`,
              })
            : ""}
        </span>
        <div className="grow" />
        <ChangeOnly>
          <CreateSessionForm />
          <ImportSessionButton />
        </ChangeOnly>
      </div>
      <div className="toolbar">
        <input
          className="input"
          type="search"
          placeholder={t("sessions.filterHint")}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label={t("sessions.filterLabel")}
        />
        <div className="seg" role="group" aria-label={t("sessions.stateLabel")}>
          {(["all", "running", "wait", "stop"] as const).map((f) => (
            <button
              key={f}
              className={filter === f ? "active" : ""}
              onClick={() => setFilter(f)}
              aria-pressed={filter === f}
            >
              {t(`sessions.filter.${f}`)}
            </button>
          ))}
        </div>
        <div className="seg" role="group" aria-label={t("sessions.archived.label")}>
          {(["exclude", "only", "include"] as const).map((a) => (
            <button
              key={a}
              className={archived === a ? "active" : ""}
              onClick={() => setArchived(a)}
              aria-pressed={archived === a}
            >
              {t(`sessions.archived.${a}`)}
            </button>
          ))}
        </div>
      </div>
      <div className="toolbar">
        <input
          className="input input-sm"
          placeholder={t("sessions.filter.platform")}
          value={platform}
          maxLength={64}
          onChange={(e) => setPlatform(e.target.value)}
          aria-label={t("sessions.filter.platform")}
        />
        <label className="field-inline">
          <span>{t("sessions.filter.activity")}</span>
          <select
            className="input input-sm"
            value={activity}
            onChange={(e) => setActivity(e.target.value as Activity)}
            aria-label={t("sessions.filter.activity")}
          >
            {(Object.keys(ACTIVITY) as Activity[]).map((a) => (
              <option key={a} value={a}>
                {t(`sessions.activity.${a}`)}
              </option>
            ))}
          </select>
        </label>
        <input
          className="input input-sm"
          type="number"
          min={0}
          step={1000}
          placeholder={t("sessions.filter.minTokens")}
          value={minTokens}
          onChange={(e) => setMinTokens(e.target.value)}
          aria-label={t("sessions.filter.minTokens")}
        />
        <input
          className="input input-sm"
          type="number"
          min={0}
          step={0.01}
          placeholder={t("sessions.filter.minCost")}
          value={minCost}
          onChange={(e) => setMinCost(e.target.value)}
          aria-label={t("sessions.filter.minCost")}
        />
      </div>
      {sessions.isPending && <Loading label={t("sessions.loading")} />}
      {sessions.isError && (
        <ErrorState
          title={t("sessions.loadError")}
          error={sessions.error}
          action={
            <button className="btn" onClick={() => void sessions.refetch()}>
              {t("sessions.retry")}
            </button>
          }
        />
      )}
      {sessions.isSuccess && rows.length === 0 && !filtered && (
        <EmptyState title={t("sessions.noneTitle")}>{t("sessions.noneBody")}</EmptyState>
      )}
      {sessions.isSuccess && rows.length === 0 && filtered && (
        <EmptyState title={t("sessions.noMatchTitle")}>{t("sessions.noMatchBody")}</EmptyState>
      )}
      {rows.length > 0 && <SessionTable rows={rows} sort={sort} onSort={onSort} />}
      {sessions.hasNextPage && (
        <div className="toolbar">
          <button
            className="btn"
            data-testid="sessions-more"
            disabled={sessions.isFetchingNextPage}
            onClick={() => void sessions.fetchNextPage()}
          >
            {t(sessions.isFetchingNextPage ? "sessions.loadingMore" : "sessions.more")}
          </button>
        </div>
      )}
    </div>
  );
}

/** A column header that sorts: a button (Enter / Space) inside a th that says how it is sorted. */
function SortHeader(props: {
  field: SessionSortField;
  sort: SortState;
  onSort: (field: SessionSortField) => void;
  className?: string;
  children: ReactNode;
}) {
  const active = props.sort.sort === props.field;
  return (
    <th
      className={props.className}
      aria-sort={active ? (props.sort.order === "asc" ? "ascending" : "descending") : "none"}
    >
      <button type="button" className="sort-header" onClick={() => props.onSort(props.field)} data-sort={props.field}>
        {props.children}
        <span aria-hidden="true">{active ? (props.sort.order === "asc" ? " ▲" : " ▼") : ""}</span>
      </button>
    </th>
  );
}

function SessionTable(props: { rows: SessionSummary[]; sort: SortState; onSort: (field: SessionSortField) => void }) {
  const { rows, sort, onSort } = props;
  const now = useNow();
  const t = useT();
  const [acting, setActing] = useState<{ session: SessionSummary; action: SessionAction } | null>(null);
  const queryClient = useQueryClient();
  const unarchive = useMutation({
    mutationFn: (id: string) => api.unarchiveSession(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
  const header = { sort, onSort };
  return (
    <>
      <table className="table sessions-table">
        <thead>
          <tr>
            <SortHeader field="name" {...header}>
              {t("sessions.col.session")}
            </SortHeader>
            <th>{t("sessions.col.now")}</th>
            <th className="num">{t("sessions.col.cycles")}</th>
            <SortHeader field="pending" className="num" {...header}>
              {t("sessions.col.pending")}
            </SortHeader>
            <SortHeader field="tokens" className="num" {...header}>
              {t("sessions.col.tokens")}
            </SortHeader>
            <SortHeader field="cost" className="num" {...header}>
              {t("sessions.col.cost")}
            </SortHeader>
            <SortHeader field="lastActivity" {...header}>
              {t("sessions.col.lastActivity")}
            </SortHeader>
            <SortHeader field="created" {...header}>
              {t("sessions.col.created")}
            </SortHeader>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id} data-session-id={s.id} data-last-seq={s.lastSeq} data-archived={s.archivedAt !== null}>
              <td>
                <Link href={`/sessions/${encodeURIComponent(s.id)}`} className="session-link">
                  {s.name || s.id}
                </Link>{" "}
                {chatPlatformLabel(s.platform) && <PlatformBadge platform={s.platform} />}
                {s.imported && <ImportedBadge />}
                {s.origin && <DerivedBadge origin={s.origin} />}
                {s.archivedAt !== null && (
                  <Badge tone="warn" title={formatDateTime(s.archivedAt)}>
                    {t("sessions.archivedBadge")}
                  </Badge>
                )}
                <div className="sub mono">
                  {s.id} · {t(s.isGroupChat ? "session.group" : "session.private")} · {s.platform}
                  {/* A dashboard group chat's group is the session itself (its id, just shown). */}
                  {s.groupId && s.groupId !== s.id && (
                    <span data-testid="session-group-id">{t("sessions.groupSub", { id: s.groupId })}</span>
                  )}
                  {!s.groupId && s.userId && (
                    <span data-testid="session-user-id">{t("sessions.userSub", { id: s.userId })}</span>
                  )}
                </div>
              </td>
              <td>
                <StageBadge agentState={s.agentState} stage={s.stage} detail={s.stageDetail} roundText={s.roundText} />
                {s.agentState === "wait" && s.waitDeadline !== null && (
                  <div className="sub mono" data-testid="wait-countdown" title={formatDateTime(s.waitDeadline)}>
                    {t("sessions.waitEndsIn", {
                      duration: formatDuration(Math.max(0, s.waitDeadline - (now || s.lastActiveAt))),
                    })}
                  </div>
                )}
              </td>
              <td className="num" data-testid="cycle-count">
                {s.cycleCount}
              </td>
              <td className="num" data-testid="pending-count">
                {s.pendingMessages || ""}
              </td>
              <td className="num mono" data-testid="session-usage" colSpan={2}>
                {s.totalTokens ? usageSummary(s) : ""}
              </td>
              <td title={formatDateTime(s.lastActiveAt)}>
                {now ? formatAgo(s.lastActiveAt, now) : formatDateTime(s.lastActiveAt)}
              </td>
              <td title={formatDateTime(s.createdAt)}>
                {now ? formatAgo(s.createdAt, now) : formatDateTime(s.createdAt)}
              </td>
              <td className="row-actions">
                <Link href={`/sessions/${encodeURIComponent(s.id)}`}>{t("sessions.live")}</Link>
                <Link href={`/sessions/${encodeURIComponent(s.id)}/replay`}>{t("sessions.replay")}</Link>
                <ChangeOnly>
                  {s.archivedAt === null ? (
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => setActing({ session: s, action: "archive" })}
                    >
                      {t("sessions.archive")}
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="btn btn-sm"
                      disabled={unarchive.isPending}
                      onClick={() => unarchive.mutate(s.id)}
                    >
                      {t("sessions.unarchive")}
                    </button>
                  )}
                  <button
                    type="button"
                    className="btn btn-sm btn-danger"
                    onClick={() => setActing({ session: s, action: "delete" })}
                  >
                    {t("sessions.delete")}
                  </button>
                </ChangeOnly>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {acting && (
        <SessionActionDialog session={acting.session} action={acting.action} onClose={() => setActing(null)} />
      )}
    </>
  );
}

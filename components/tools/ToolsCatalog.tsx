"use client";
// /tools: every provider's ToolSpecs grouped by provider, with icons, annotations, parameters,
// enabled switches (globally or for one session, with a reason), whether the engine has applied a
// switch yet, and the audit list. ?session=ID selects the session scope (deep-linkable).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef, useState, type ReactNode } from "react";
import type { ProviderStatus, ToolView } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { groupTools, providerOrder, statusKey, type StateFilter, type ToolGroup } from "../../lib/client/tool-groups";
import { useLiveSessions } from "../../lib/client/react/use-live-sessions";
import { sessionLabelText } from "../../lib/client/session-label";
import { useT } from "../../lib/client/react/use-locale";
import {
  observeToggleEvents,
  startToggle,
  toggleAccepted,
  toggleFailed,
  toggleKey,
  type ToggleAcks,
} from "../../lib/client/toggle-ack";
import { Badge } from "../ui/Badge";
import { EmptyState, ErrorState, Loading, describeError } from "../ui/States";
import { AuditList } from "./AuditList";
import { ModelEndpoints } from "./ModelEndpoints";
import { ToolRow } from "./ToolRow";

const RECENT_EVENTS = 500;

export function ToolsCatalog() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const sessionId = params.get("session") || null;
  const [search, setSearch] = useState("");
  const [provider, setProvider] = useState("all");
  const [state, setState] = useState<StateFilter>("all");
  const [acks, setAcks] = useState<ToggleAcks>(new Map());
  const recent = useRef<MonitorEvent[]>([]);
  const queryClient = useQueryClient();
  const t = useT();

  const onEvents = useCallback(
    (events: MonitorEvent[]) => {
      // Kept briefly so a switch answered after its own events still sees them.
      recent.current = [...recent.current, ...events].slice(-RECENT_EVENTS);
      setAcks((prev) => (prev.size ? observeToggleEvents(prev, events) : prev));
      if (events.some((e) => e.type === "tool.toggled")) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.toolsAll });
        void queryClient.invalidateQueries({ queryKey: queryKeys.audit });
      }
    },
    [queryClient],
  );
  const sessions = useLiveSessions({ onEvents });
  const tools = useQuery({
    queryKey: queryKeys.tools(sessionId),
    queryFn: async () => (await api.tools(sessionId)).tools,
  });
  const providers = useQuery({
    queryKey: queryKeys.providers,
    queryFn: async () => (await api.providers()).providers,
    refetchInterval: 10_000,
  });

  const toggle = useMutation({
    mutationFn: (v: { name: string; enabled: boolean; reason: string }) =>
      api.toggleTool(v.name, { enabled: v.enabled, reason: v.reason, ...(sessionId ? { sessionId } : {}) }),
    onMutate: async (v) => {
      setAcks((prev) =>
        startToggle(prev, { toolName: v.name, enabled: v.enabled, sessionId, requestedAt: Date.now() }),
      );
      // The switch stays where the operator put it while the change is sent (a refetch in flight
      // would bring the old state back); a failure refetches the truth (onSettled).
      await queryClient.cancelQueries({ queryKey: queryKeys.tools(sessionId) });
      queryClient.setQueryData<ToolView[]>(queryKeys.tools(sessionId), (list) =>
        list?.map((tool) => (tool.name === v.name ? { ...tool, enabled: v.enabled } : tool)),
      );
    },
    onSuccess: (result, v) =>
      setAcks((prev) =>
        observeToggleEvents(toggleAccepted(prev, v.name, sessionId, result, Date.now()), recent.current),
      ),
    onError: (error, v) => setAcks((prev) => toggleFailed(prev, v.name, sessionId, describeError(error))),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.toolsAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.audit });
    },
  });

  const setScope = (id: string) => {
    const q = new URLSearchParams(params.toString());
    if (id) q.set("session", id);
    else q.delete("session");
    router.replace(`${pathname}${q.size ? `?${q}` : ""}`);
  };

  const groups = useMemo(
    () => groupTools(tools.data ?? [], { search, provider, state }),
    [tools.data, search, provider, state],
  );
  const providerChoices = useMemo(() => providerOrder(tools.data ?? []), [tools.data]);
  const statusByKey = useMemo(() => new Map((providers.data ?? []).map((p) => [statusKey(p), p])), [providers.data]);
  const shown = groups.reduce((n, g) => n + g.tools.length, 0);
  const scopeName = sessionId ? (sessions.data?.find((s) => s.id === sessionId)?.name ?? sessionId) : null;

  return (
    <div className="page page-tools">
      <div className="page-head">
        <h1>{t("nav.tools")}</h1>
        <span className="muted">{tools.data ? t("tools.shown", { shown, total: tools.data.length }) : ""}</span>
        <span className="grow" />
        <label className="field-inline">
          <span>{t("tools.scope")}</span>
          <select
            className="input"
            value={sessionId ?? ""}
            onChange={(e) => setScope(e.target.value)}
            aria-label={t("tools.scopeLabel")}
            data-testid="scope-select"
          >
            <option value="">{t("tools.scopeGlobal")}</option>
            {sessionId && !sessions.data?.some((s) => s.id === sessionId) && (
              <option value={sessionId}>{t("tools.scopeSession", { name: sessionId })}</option>
            )}
            {(sessions.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {t("tools.scopeSession", { name: sessionLabelText(s.id, s) })}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="toolbar">
        <input
          className="input"
          type="search"
          placeholder={t("tools.search")}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          aria-label={t("tools.searchLabel")}
        />
        <select
          className="input"
          value={provider}
          onChange={(e) => setProvider(e.target.value)}
          aria-label={t("tools.provider")}
        >
          <option value="all">{t("tools.allProviders")}</option>
          {providerChoices.map((p) => (
            <option key={p.key} value={p.key}>
              {p.name}
            </option>
          ))}
        </select>
        <div className="seg" role="group" aria-label={t("tools.state")}>
          {(["all", "enabled", "disabled"] as const).map((s) => (
            <button
              key={s}
              className={state === s ? "active" : ""}
              aria-pressed={state === s}
              onClick={() => setState(s)}
            >
              {t(`tools.state.${s}`)}
            </button>
          ))}
        </div>
        {scopeName && <span className="scope-note">{t("tools.scopeNote", { name: scopeName })}</span>}
        <span className="grow" />
        <span className="muted small hint-legend">
          {t("tools.hints")} <Badge tone="neutral">{t("tools.hintSolid")}</Badge> {t("tools.hintDeclared")} ·{" "}
          <Badge tone="neutral" dashed>
            {t("tools.hintDashed")}
          </Badge>{" "}
          {t("tools.hintDefault")} ·{" "}
          <span className="hint-na">
            <Badge tone="muted">{t("tools.hintFaded")}</Badge>
          </span>{" "}
          {t("tools.hintNa")}
        </span>
      </div>
      <div className="tools-grid">
        <div className="tools-main">
          {tools.isPending && <Loading label={t("tools.loading")} />}
          {tools.isError && (
            <ErrorState
              title={t("tools.loadError")}
              error={tools.error}
              action={
                <button className="btn" onClick={() => void tools.refetch()}>
                  {t("tools.retry")}
                </button>
              }
            />
          )}
          {tools.isSuccess && tools.data.length === 0 && (
            <EmptyState title={t("tools.noneTitle")}>{t("tools.noneBody")}</EmptyState>
          )}
          {tools.isSuccess && tools.data.length > 0 && shown === 0 && (
            <EmptyState title={t("tools.noMatchTitle")}>{t("tools.noMatchBody")}</EmptyState>
          )}
          {groups.map((g) => (
            <ProviderGroup key={g.key} group={g} status={statusByKey.get(g.key)}>
              {g.tools.map((tool) => (
                <ToolRow
                  key={tool.name}
                  tool={tool}
                  scopeLabel={scopeName ? t("tools.scopeSession", { name: scopeName }) : t("tools.allSessions")}
                  ack={acks.get(toggleKey(tool.name, sessionId)) ?? null}
                  onToggle={(enabled, reason) => toggle.mutate({ name: tool.name, enabled, reason })}
                  sessions={sessions.data ?? []}
                />
              ))}
            </ProviderGroup>
          ))}
        </div>
        <aside className="tools-side">
          <ModelEndpoints />
          <AuditList />
        </aside>
      </div>
    </div>
  );
}

function ProviderGroup({
  group,
  status,
  children,
}: {
  group: ToolGroup;
  status: ProviderStatus | undefined;
  children: ReactNode;
}) {
  const t = useT();
  return (
    <section
      className="provider"
      aria-label={t("tools.providerLabel", { name: group.name })}
      data-provider={group.name}
      data-provider-type={group.type}
    >
      <header className="provider-head">
        <span className="provider-name">{group.name}</span>
        <span className="muted small">{t(`tools.providerType.${group.type}`)}</span>
        {status && (
          <span className={`prov-state prov-${status.state}`} data-state={status.state}>
            {t(`tools.providerState.${status.state}`)}
          </span>
        )}
        <span className="muted small">{t("tools.count", { count: group.total })}</span>
        {status?.lastError && (
          <span className="bad-text small text">{t("tools.lastError", { error: status.lastError })}</span>
        )}
      </header>
      <ul className="tool-list">{children}</ul>
    </section>
  );
}

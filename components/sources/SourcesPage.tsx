"use client";
// /sources: the MCP servers (state, error, stderr tail, tools, list_changed history; add, edit and
// remove for admins, enable, disable and restart for operators too) and the plugins (Runner state,
// loaded and failed plugins with their hook points; reload). Everything a server or plugin reports is
// rendered as text.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useCanChange, useIsAdmin } from "../../lib/client/react/use-account";
import { useT } from "../../lib/client/react/use-locale";
import { ErrorState, Loading } from "../ui/States";
import { McpServerCard } from "./McpServerCard";
import { McpServerForm } from "./McpServerForm";
import { PluginsPanel } from "./PluginsPanel";

/** Servers connect, fail and retry within seconds: poll about as often. */
const POLL_MS = 2_000;

export function SourcesPage() {
  const t = useT();
  const canChange = useCanChange();
  const canDefine = useIsAdmin();
  const servers = useQuery({ queryKey: queryKeys.mcpServers, queryFn: api.mcpServers, refetchInterval: POLL_MS });
  const [adding, setAdding] = useState(false);
  return (
    <div className="page" data-testid="sources-page">
      <div className="page-head">
        <h1>{t("sources.title")}</h1>
      </div>
      {!canChange && <p className="muted">{t("sources.readOnly")}</p>}
      {canChange && !canDefine && <p className="muted">{t("sources.adminOnly")}</p>}
      <section className="sources-section">
        <h2>{t("sources.mcp")}</h2>
        {servers.data && !servers.data.enabled && <p className="warn-text">{t("sources.mcpOff")}</p>}
        {servers.isPending && <Loading label="…" />}
        {servers.isError && <ErrorState title={t("sources.mcp")} error={servers.error} />}
        {servers.data?.servers.length === 0 && <p className="muted">{t("sources.none")}</p>}
        <div className="sources-list">
          {servers.data?.servers.map((server) => (
            <McpServerCard key={server.name} server={server} canChange={canChange} canDefine={canDefine} />
          ))}
        </div>
        {canDefine &&
          (adding ? (
            <McpServerForm onDone={() => setAdding(false)} />
          ) : (
            <button className="btn btn-primary" onClick={() => setAdding(true)} data-testid="mcp-add">
              {t("sources.add")}
            </button>
          ))}
      </section>
      <PluginsPanel canChange={canChange} />
    </div>
  );
}

"use client";
// One MCP server: its state and definition (secrets only as names), last error, stderr tail, tools and
// list_changed history, with enable / disable and restart (operators) and edit and remove (admins),
// each with a reason. The API leaves out what the reader's role may not see (stderr, arguments).
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { McpServerView } from "../../lib/api/sources";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { conflictVersion } from "../../lib/client/mcp-form";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { Badge, type Tone } from "../ui/Badge";
import { describeError } from "../ui/States";
import { McpServerForm } from "./McpServerForm";

const stateTone: Record<McpServerView["status"]["state"], Tone> = {
  connected: "ok",
  connecting: "info",
  failed: "bad",
  disabled: "muted",
};

export function McpServerCard({
  server,
  canChange,
  canDefine,
}: {
  server: McpServerView;
  canChange: boolean;
  /** Admins: edit the definition and remove the server. */
  canDefine: boolean;
}) {
  const t = useT();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const { config, status, secrets } = server;

  const act = async (run: () => Promise<unknown>) => {
    if (!reason.trim()) return setMessage(t("sources.reasonMissing"));
    setBusy(true);
    setMessage(null);
    try {
      await run();
      setReason("");
    } catch (error) {
      setMessage(describeError(error));
    } finally {
      setBusy(false);
      setConfirmRemove(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers });
      await queryClient.invalidateQueries({ queryKey: queryKeys.toolsAll });
      await queryClient.invalidateQueries({ queryKey: queryKeys.providers });
    }
  };

  const toggle = () =>
    act(async () => {
      const res = await api.updateMcpServer(server.name, {
        version: server.version,
        changes: { enabled: !config.enabled },
        reason,
      });
      if (res.status === 409) setMessage(t("sources.conflict", { version: conflictVersion(res.body) }));
    });

  const remove = () =>
    act(async () => {
      const res = await api.deleteMcpServer(server.name, { version: server.version, reason });
      if (res.status === 409) setMessage(t("sources.conflict", { version: conflictVersion(res.body) }));
    });

  return (
    <article className="panel sources-card" data-testid="mcp-server" data-name={server.name} data-state={status.state}>
      <header className="sources-card-head">
        <strong className="text">{server.name}</strong>
        <Badge tone={stateTone[status.state]} testId="mcp-state">
          {t(`sources.state.${status.state}`)}
        </Badge>
        <span className="muted">
          {config.transport} · v{server.version} · {t("sources.tools", { count: status.tools.length })}
        </span>
        {status.serverInfo && (
          <span className="muted text">
            {status.serverInfo.name} {status.serverInfo.version}
          </span>
        )}
      </header>
      <div className="sub mono text">
        {config.transport === "stdio" ? [config.command, ...(config.args ?? [])].join(" ") : config.url}
      </div>
      {secrets && (secrets.env.length > 0 || secrets.headers.length > 0 || secrets.bearerToken) && (
        <div className="sub">
          {[...secrets.env, ...secrets.headers, ...(secrets.bearerToken ? ["bearerToken"] : [])]
            .map((name) => `${name} ●●●`)
            .join(" · ")}
        </div>
      )}
      {status.lastError && (
        <div className="state state-error" data-testid="mcp-error">
          <div className="sub">
            {t("sources.lastError")}
            {status.lastErrorAt ? ` · ${formatDateTime(status.lastErrorAt)}` : ""}
          </div>
          <pre className="text sources-pre">{status.lastError}</pre>
        </div>
      )}
      {status.stderrTail && status.stderrTail.length > 0 && (
        <details>
          <summary>{t("sources.stderr")}</summary>
          <pre className="text sources-pre" data-testid="mcp-stderr">
            {status.stderrTail.join("\n")}
          </pre>
        </details>
      )}
      {status.tools.length > 0 && (
        <details>
          <summary>{t("sources.tools", { count: status.tools.length })}</summary>
          <ul className="sources-tools" data-testid="mcp-tools">
            {status.tools.map((tool) => (
              <li key={tool.exposedName}>
                <span className="mono">{tool.exposedName}</span>
                {tool.description && <span className="muted text"> — {tool.description}</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
      {status.toolListChanges.length > 0 && (
        <details>
          <summary>{t("sources.history")}</summary>
          <ul className="sources-tools" data-testid="mcp-history">
            {status.toolListChanges.map((change, index) => (
              <li key={`${change.at}:${index}`}>
                {formatDateTime(change.at)}
                {change.added.length > 0 && ` · ${t("sources.added")}: ${change.added.join(", ")}`}
                {change.removed.length > 0 && ` · ${t("sources.removed")}: ${change.removed.join(", ")}`}
              </li>
            ))}
          </ul>
        </details>
      )}
      {canChange && !editing && (
        <div className="sources-actions">
          <input
            className="input"
            placeholder={t("sources.reason")}
            aria-label={t("sources.reason")}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            data-testid="mcp-reason"
          />
          {canDefine && (
            <button className="btn btn-sm" onClick={() => setEditing(true)} data-testid="mcp-edit">
              {t("sources.edit")}
            </button>
          )}
          <button className="btn btn-sm" disabled={busy} onClick={() => void toggle()} data-testid="mcp-toggle">
            {config.enabled ? t("sources.switchOff") : t("sources.switchOn")}
          </button>
          <button
            className="btn btn-sm"
            disabled={busy}
            onClick={() => void act(() => api.restartMcpServer(server.name, reason))}
            data-testid="mcp-restart"
          >
            {t("sources.restart")}
          </button>
          {canDefine &&
            (confirmRemove ? (
              <button className="btn btn-sm btn-danger" disabled={busy} onClick={() => void remove()} autoFocus>
                {t("sources.removeConfirm")}
              </button>
            ) : (
              <button className="btn btn-sm btn-ghost" onClick={() => setConfirmRemove(true)} data-testid="mcp-remove">
                {t("sources.remove")}
              </button>
            ))}
        </div>
      )}
      {message && (
        <div className="state state-error" role="alert">
          {message}
        </div>
      )}
      {editing && <McpServerForm server={server} onDone={() => setEditing(false)} />}
    </article>
  );
}

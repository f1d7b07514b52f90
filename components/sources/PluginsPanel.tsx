"use client";
// The plugin Runner's state, its loaded plugins (tools, hook points) and failed ones (errors), and a
// reload with a reason (a new Runner loads the plugin folders again).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { PluginsView } from "../../lib/api/sources";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { Badge, type Tone } from "../ui/Badge";
import { describeError, ErrorState, Loading } from "../ui/States";

const phaseTone: Record<PluginsView["runner"]["phase"], Tone> = {
  idle: "muted",
  starting: "info",
  ready: "ok",
  backoff: "bad",
  closed: "muted",
};

export function PluginsPanel({ canChange }: { canChange: boolean }) {
  const t = useT();
  const queryClient = useQueryClient();
  const plugins = useQuery({ queryKey: queryKeys.plugins, queryFn: api.plugins, refetchInterval: 5_000 });
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reload = async () => {
    if (!reason.trim()) return setMessage(t("sources.reasonMissing"));
    setBusy(true);
    setMessage(null);
    try {
      queryClient.setQueryData(queryKeys.plugins, await api.reloadPlugins(reason));
      setReason("");
      await queryClient.invalidateQueries({ queryKey: queryKeys.toolsAll });
    } catch (error) {
      setMessage(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  const view = plugins.data;
  return (
    <section className="sources-section" data-testid="plugins-panel">
      <h2>{t("sources.plugins")}</h2>
      {plugins.isPending && <Loading label="…" />}
      {plugins.isError && <ErrorState title={t("sources.plugins")} error={plugins.error} />}
      {view && (
        <>
          <div className="sources-card-head">
            <span>{t("sources.runner")}</span>
            <Badge tone={phaseTone[view.runner.phase]} testId="runner-phase">
              {t(`sources.runner.${view.runner.phase}`)}
            </Badge>
            <span className="muted">
              {t("sources.runnerLine", {
                pid: view.runner.pid ?? "–",
                generation: view.runner.generation,
                restarts: view.runner.restarts,
              })}
            </span>
          </div>
          {view.runner.lastError && <pre className="state state-error text sources-pre">{view.runner.lastError}</pre>}
          {view.loaded.length === 0 && view.failed.length === 0 && <p className="muted">{t("sources.noPlugins")}</p>}
          <ul className="sources-tools">
            {view.loaded.map((plugin) => (
              <li key={plugin.id} data-testid="plugin-loaded">
                <Badge tone="ok">{t("sources.loaded")}</Badge> <strong className="text">{plugin.name}</strong>{" "}
                <span className="muted text">
                  {plugin.version} · {plugin.tools.join(", ") || "–"}
                </span>
                {plugin.hooks.length > 0 && (
                  <div className="sub mono text">
                    {t("sources.hooks")}: {plugin.hooks.join(", ")}
                  </div>
                )}
                {plugin.warnings.map((warning) => (
                  <div key={warning} className="sub warn-text text">
                    {warning}
                  </div>
                ))}
              </li>
            ))}
            {view.failed.map((plugin) => (
              <li key={plugin.id} data-testid="plugin-failed">
                <Badge tone="bad">{t("sources.failed")}</Badge> <strong className="text">{plugin.id}</strong>
                <pre className="text sources-pre">{plugin.error}</pre>
              </li>
            ))}
          </ul>
          {canChange && (
            <div className="sources-actions">
              <input
                className="input"
                placeholder={t("sources.reason")}
                aria-label={t("sources.reason")}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
              />
              <button className="btn btn-sm" disabled={busy} onClick={() => void reload()} data-testid="plugins-reload">
                {t("sources.reload")}
              </button>
            </div>
          )}
          {message && (
            <div className="state state-error text" role="alert">
              {message}
            </div>
          )}
        </>
      )}
    </section>
  );
}

"use client";
// Add or edit one MCP server. Secrets are write-only inputs: a set one shows as set, an empty input
// keeps it, a new value replaces it, "remove" drops it. A stale edit (409) says so and keeps the form.
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { McpServerView } from "../../lib/api/sources";
import { api } from "../../lib/client/api";
import {
  changesOf,
  conflictVersion,
  createBody,
  initialFormValues,
  type McpFormValues,
} from "../../lib/client/mcp-form";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { describeError } from "../ui/States";

export function McpServerForm({ server, onDone }: { server?: McpServerView; onDone: () => void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<McpFormValues>(() => initialFormValues(server));
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof McpFormValues>(key: K, value: McpFormValues[K]) =>
    setValues({ ...values, [key]: value });
  const stdio = values.transport === "stdio";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) return setError(t("sources.reasonMissing"));
    setBusy(true);
    setError(null);
    try {
      const res = server
        ? await api.updateMcpServer(server.name, {
            version: server.version,
            changes: changesOf(values, server),
            reason,
          })
        : await api.createMcpServer(createBody(values, reason));
      if (res.status === 409) {
        setError(server ? t("sources.conflict", { version: conflictVersion(res.body) }) : t("sources.taken"));
        return;
      }
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers }),
        queryClient.invalidateQueries({ queryKey: queryKeys.toolsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.providers }),
      ]);
      onDone();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  const text = (key: "name" | "command" | "cwd" | "url" | "timeoutMs", label: string, disabled = false) => (
    <label className="field">
      <span className="sub">{label}</span>
      <input
        className="input"
        name={key}
        value={values[key]}
        disabled={disabled}
        onChange={(e) => set(key, e.target.value)}
      />
    </label>
  );

  return (
    <form className="panel data-form" onSubmit={(e) => void submit(e)} data-testid="mcp-form">
      {text("name", t("sources.name"), server !== undefined)}
      <label className="field">
        <span className="sub">{t("sources.transport")}</span>
        <select
          className="input"
          name="transport"
          value={values.transport}
          onChange={(e) => set("transport", e.target.value as McpFormValues["transport"])}
        >
          <option value="stdio">stdio</option>
          <option value="streamable_http">streamable_http</option>
          <option value="sse">sse</option>
        </select>
      </label>
      <label className="field-inline">
        <input type="checkbox" checked={values.enabled} onChange={(e) => set("enabled", e.target.checked)} />
        <span>{t("sources.enabled")}</span>
      </label>
      {stdio ? (
        <>
          {text("command", t("sources.command"))}
          <label className="field">
            <span className="sub">{t("sources.args")}</span>
            <textarea
              className="input"
              name="args"
              rows={3}
              value={values.args}
              onChange={(e) => set("args", e.target.value)}
            />
          </label>
          {text("cwd", t("sources.cwd"))}
        </>
      ) : (
        text("url", t("sources.url"))
      )}
      {text("timeoutMs", t("sources.timeout"))}
      {Object.keys(values.secretEdits).length > 0 && (
        <fieldset className="field">
          <legend className="sub">{stdio ? t("sources.envSet") : t("sources.headersSet")}</legend>
          <p className="muted">{t("sources.secretsMove")}</p>
          {Object.entries(values.secretEdits).map(([name, edit]) => (
            <div key={name} className="field-inline">
              <span className="mono text">{name}</span>
              <input
                className="input"
                type="password"
                autoComplete="off"
                placeholder={t("sources.keep")}
                value={edit.value}
                disabled={edit.remove}
                onChange={(e) =>
                  set("secretEdits", { ...values.secretEdits, [name]: { ...edit, value: e.target.value } })
                }
              />
              <label className="field-inline">
                <input
                  type="checkbox"
                  checked={edit.remove}
                  onChange={(e) =>
                    set("secretEdits", { ...values.secretEdits, [name]: { ...edit, remove: e.target.checked } })
                  }
                />
                {t("sources.removeSecret")}
              </label>
            </div>
          ))}
        </fieldset>
      )}
      <label className="field">
        <span className="sub">{stdio ? t("sources.newEnv") : t("sources.newHeaders")}</span>
        <textarea
          className="input mono"
          name="newSecrets"
          rows={2}
          autoComplete="off"
          spellCheck={false}
          value={values.newSecrets}
          onChange={(e) => set("newSecrets", e.target.value)}
        />
      </label>
      {!stdio && (
        <div className="field-inline">
          <label className="field">
            <span className="sub">{t("sources.bearer")}</span>
            <input
              className="input"
              type="password"
              autoComplete="off"
              name="bearerToken"
              placeholder={server?.secrets?.bearerToken ? t("sources.bearerSet") : t("sources.bearerUnset")}
              value={values.bearerToken}
              disabled={values.removeBearer}
              onChange={(e) => set("bearerToken", e.target.value)}
            />
          </label>
          {server?.secrets?.bearerToken && (
            <label className="field-inline">
              <input
                type="checkbox"
                checked={values.removeBearer}
                onChange={(e) => set("removeBearer", e.target.checked)}
              />
              {t("sources.removeSecret")}
            </label>
          )}
        </div>
      )}
      <label className="field">
        <span className="sub">{t("sources.reason")}</span>
        <input className="input" name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      {error && (
        <div className="state state-error text" role="alert" data-testid="mcp-form-error">
          {error}
        </div>
      )}
      <div className="data-form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy} data-testid="mcp-save">
          {t("sources.save")}
        </button>
        <button className="btn btn-ghost" type="button" onClick={onDone}>
          {t("sources.cancel")}
        </button>
      </div>
    </form>
  );
}

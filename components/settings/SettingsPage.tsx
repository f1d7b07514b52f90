"use client";
// Settings live (GET/PATCH /api/settings): forms per section, a reason, a diff preview before the
// change applies (from the next turn), the server's validation shown on the fields, and a conflict
// message with a reload when another operator saved meanwhile. Every value is rendered as text. A viewer
// sees the values, read-only, and nothing that would change them.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SettingsConflict, SettingsDiffEntry, SettingsResponse } from "../../lib/api/settings";
import { ApiRequestError } from "../../lib/client/api";
import { useCanChange } from "../../lib/client/react/use-account";
import { useT } from "../../lib/client/react/use-locale";
import {
  draftOf,
  fetchSettings,
  patchOf,
  patchSettings,
  settingsQueryKey,
  valueText,
  type SettingsDraft,
} from "../../lib/client/settings";
import { ErrorState } from "../ui/States";
import { BotSection, ChatSection, ModelsSection, PromptsSection, type FieldErrors } from "./sections";

type Section = "bot" | "chat" | "models" | "prompts";
const SECTIONS: Section[] = ["bot", "chat", "models", "prompts"];

export function SettingsPage() {
  const t = useT();
  const query = useQuery({ queryKey: settingsQueryKey, queryFn: fetchSettings });
  // Here, not in the form: the form starts afresh on the version it saved.
  const [saved, setSaved] = useState<number | null>(null);
  if (query.isError) return <ErrorState title={t("settings.loadFailed")} error={query.error} />;
  if (!query.data) return <div className="page muted">…</div>;
  // Keyed by version: a reload after a conflict starts the form from the new values.
  return <SettingsForm key={query.data.version} loaded={query.data} saved={saved} onSaved={setSaved} />;
}

interface FormProps {
  loaded: SettingsResponse;
  /** The version this page saved last (null: none, or edited since). */
  saved: number | null;
  onSaved: (version: number | null) => void;
}

function SettingsForm({ loaded, saved, onSaved }: FormProps) {
  const t = useT();
  const queryClient = useQueryClient();
  const [section, setSection] = useState<Section>("bot");
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(loaded.settings));
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [preview, setPreview] = useState<SettingsDiffEntry[] | null>(null);
  const [conflict, setConflict] = useState<SettingsConflict | null>(null);
  const [busy, setBusy] = useState(false);
  const readOnly = !useCanChange();
  const patch = patchOf(loaded.settings, draft);

  const edit = (next: SettingsDraft) => {
    setDraft(next);
    onSaved(null);
    // An edit after a preview needs a new preview.
    setPreview(null);
  };

  const send = async (apply: boolean) => {
    if (!patch) return;
    setBusy(true);
    setMessage(null);
    try {
      const outcome = await patchSettings({ ...patch, version: loaded.version, reason, preview: !apply });
      if (outcome.kind === "conflict") {
        setConflict(outcome.conflict);
        return;
      }
      setErrors({});
      if (!apply) setPreview(outcome.result.diff);
      else {
        onSaved(outcome.result.version);
        await queryClient.invalidateQueries({ queryKey: settingsQueryKey });
      }
    } catch (error) {
      if (error instanceof ApiRequestError && error.fields.length) {
        setErrors(Object.fromEntries(error.fields.map((f) => [f.path, f.message])));
        // Open the first section with a problem.
        const first = error.fields[0].path.split(".")[0];
        if (SECTIONS.includes(first as Section)) setSection(first as Section);
        else if (first !== "reason") setSection("bot");
      }
      setMessage(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  const reload = async () => {
    setConflict(null);
    await queryClient.invalidateQueries({ queryKey: settingsQueryKey });
  };

  return (
    <div className="page settings-page" data-testid="settings-page">
      <div className="page-head">
        <h1>{t("settings.title")}</h1>
        <span className="muted small" data-testid="settings-version">
          {t("settings.version", { version: loaded.version })}
        </span>
      </div>
      <p className="muted small">{t(readOnly ? "settings.readOnly" : "settings.nextTurn")}</p>
      {saved !== null && (
        <div className="banner" role="status" data-testid="settings-saved">
          {t("settings.saved", { version: saved })}
        </div>
      )}
      {conflict && (
        <div className="banner banner-bad" role="alert" data-testid="settings-conflict">
          <div>{t("settings.conflict")}</div>
          <div className="text small">{conflict.error}</div>
          <ul className="small">
            {conflict.conflict.changes.map((c) => (
              <li key={c.version}>
                v{c.version} · {c.actor} · <span className="mono">{c.paths.join(", ")}</span> · {c.reason}
              </li>
            ))}
          </ul>
          <button type="button" className="btn btn-sm" onClick={() => void reload()}>
            {t("settings.reload")}
          </button>
        </div>
      )}
      <div className="seg" role="tablist" aria-label={t("settings.title")}>
        {SECTIONS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={section === s}
            className={section === s ? "active" : ""}
            onClick={() => setSection(s)}
          >
            {t(`settings.section.${s}`)}
            {Object.keys(errors).some((p) => p.startsWith(`${s}.`)) && " ⚠"}
          </button>
        ))}
      </div>
      <div className="settings-section">
        {section === "bot" && <BotSection draft={draft} onChange={edit} errors={errors} readOnly={readOnly} />}
        {section === "chat" && <ChatSection draft={draft} onChange={edit} errors={errors} readOnly={readOnly} />}
        {section === "models" && (
          <ModelsSection
            draft={draft}
            onChange={edit}
            errors={errors}
            readOnly={readOnly}
            endpoints={loaded.endpoints}
          />
        )}
        {section === "prompts" && (
          <PromptsSection
            draft={draft}
            onChange={edit}
            errors={errors}
            readOnly={readOnly}
            names={loaded.promptNames}
            defaults={loaded.defaults}
          />
        )}
      </div>
      {!readOnly && (
        <div className="settings-apply">
          <label className="field">
            <span>{t("settings.reason")}</span>
            <input
              className="input"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              aria-label={t("settings.reason")}
              data-testid="settings-reason"
            />
            {errors.reason && <span className="form-error">{errors.reason}</span>}
          </label>
          <div className="toolbar">
            <button
              type="button"
              className="btn"
              disabled={!patch || busy}
              onClick={() => void send(false)}
              data-testid="settings-preview"
            >
              {t("settings.preview")}
            </button>
            <button
              type="button"
              className="btn btn-primary"
              disabled={!patch || !preview || preview.length === 0 || busy || !reason.trim()}
              onClick={() => void send(true)}
              data-testid="settings-apply"
            >
              {t("settings.apply")}
            </button>
            {!patch && <span className="muted small">{t("settings.unchanged")}</span>}
          </div>
          {message && (
            <div className="form-error" role="alert">
              {message}
            </div>
          )}
          {preview && <DiffTable diff={preview} />}
        </div>
      )}
    </div>
  );
}

function DiffTable({ diff }: { diff: SettingsDiffEntry[] }) {
  const t = useT();
  if (diff.length === 0) return <div className="muted small">{t("settings.noDiff")}</div>;
  return (
    <table className="table" aria-label={t("settings.diff")} data-testid="settings-diff">
      <thead>
        <tr>
          <th>{t("settings.diff.path")}</th>
          <th>{t("settings.diff.before")}</th>
          <th>{t("settings.diff.after")}</th>
        </tr>
      </thead>
      <tbody>
        {diff.map((d) => (
          <tr key={d.path} data-path={d.path}>
            <td className="mono small">{d.path}</td>
            <td className="text small">{valueText(d.before)}</td>
            <td className="text small">{valueText(d.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

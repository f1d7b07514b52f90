"use client";
// "Re-run" and "Fork from this cycle": a modal dialog (the browser's modal <dialog> keeps the focus in
// it, Escape closes it, Enter in a field or Ctrl+Enter in a text area submits). The form's state and
// its conversion to the request are lib/client/rerun-form.ts; on success the new session's replay opens.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { SettingsResponse } from "../../lib/api/settings";
import { branchesQueryKey, startRerun } from "../../lib/client/api-rerun";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import {
  EDIT_KINDS,
  PROMPT_OVERRIDE_LOCALES,
  emptyDraft,
  newEdit,
  problemAt,
  toRerunRequest,
  type DraftProblem,
  type EditDraft,
  type PromptOverrideDraft,
  type RerunDraft,
} from "../../lib/client/rerun-form";
import {
  clip,
  messageChoices,
  replayHref,
  speakerChoices,
  toolCallChoices,
  toolChoices,
  type MessageChoice,
} from "../../lib/client/rerun-view";
import { fetchSettings, settingsQueryKey } from "../../lib/client/settings";
import type { CycleView, Timeline } from "../../lib/client/timeline";
import type { Translate } from "../../lib/i18n/messages";
import { continueWithSchema } from "../../lib/rerun/schemas";
import { describeError } from "../ui/States";

/** What the dialog offers to pick from, taken from the recording and the settings. */
export interface RerunChoices {
  messages: MessageChoice[];
  speakers: { name: string; userId: string | null }[];
  toolCalls: { id: string; name: string; result: string }[];
  tools: string[];
  promptNames: string[];
  /** The built-in template per locale and name (an override starts from it). */
  defaults: SettingsResponse["defaults"] | null;
  /** The current talk value and prompt locale (what an unchanged field keeps). */
  talkValue: number | null;
  botLocale: "zh-CN" | "en";
}

export function RerunDialog(props: {
  sessionId: string;
  /** null: a re-run of the whole session; a cycle: a fork from it. */
  cycle: CycleView | null;
  timeline: Pick<Timeline, "items">;
  onClose: () => void;
}) {
  const { sessionId, cycle, timeline, onClose } = props;
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<RerunDraft>(() =>
    emptyDraft(cycle ? "fork" : "rerun", cycle ? cycle.cycleId : null),
  );
  const [problems, setProblems] = useState<DraftProblem[]>([]);
  const settings = useQuery({ queryKey: settingsQueryKey, queryFn: fetchSettings });
  const choices = useMemo<RerunChoices>(() => {
    const messages = messageChoices(timeline, cycle?.cycleId ?? null);
    return {
      messages,
      speakers: speakerChoices(messages),
      toolCalls: toolCallChoices(cycle),
      tools: toolChoices(timeline, cycle),
      promptNames: settings.data?.promptNames ?? [],
      defaults: settings.data?.defaults ?? null,
      talkValue: settings.data?.settings.chat.talkValue ?? null,
      botLocale: settings.data?.settings.bot.locale ?? "zh-CN",
    };
  }, [timeline, cycle, settings.data]);

  const run = useMutation({
    mutationFn: (body: Parameters<typeof startRerun>[1]) => startRerun(sessionId, body),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: branchesQueryKey(sessionId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      onClose();
      router.push(replayHref(result.id));
    },
  });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const outcome = toRerunRequest(draft);
    if (!outcome.ok) {
      setProblems(outcome.problems);
      return;
    }
    setProblems([]);
    run.mutate(outcome.request);
  };
  // Enter in an input submits natively; in a text area Ctrl/Cmd+Enter does.
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) submit(e);
  };

  return (
    <dialog
      ref={ref}
      className="confirm-dialog rerun-dialog"
      aria-labelledby="rerun-dialog-title"
      data-testid="rerun-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form className="rerun-form" onSubmit={submit} onKeyDown={onKeyDown} noValidate>
        <h2 id="rerun-dialog-title">
          {cycle ? t("rerun.forkTitle", { cycle: cycle.cycleId }) : t("rerun.rerunTitle")}
        </h2>
        <p className="muted small">{t(cycle ? "rerun.forkHelp" : "rerun.rerunHelp")}</p>
        <RerunForm draft={draft} onChange={setDraft} choices={choices} problems={problems} t={t} />
        {problems.length > 0 && (
          <ul className="form-error rerun-problems" role="alert" data-testid="rerun-problems">
            {problems.map((p, i) => (
              <li key={i}>
                <span className="mono">{p.path}</span>: {t(`rerun.problem.${p.code}`)}
                {p.detail ? ` (${p.detail})` : ""}
              </li>
            ))}
          </ul>
        )}
        {run.isError && (
          <p className="form-error" role="alert" data-testid="rerun-error">
            {describeError(run.error)}
          </p>
        )}
        <div className="tool-run-actions">
          <span className="muted small">{t("rerun.keysHint")}</span>
          <span className="grow" />
          <button type="button" className="btn btn-sm" onClick={onClose}>
            {t("rerun.cancel")}
          </button>
          <button type="submit" className="btn btn-sm btn-primary" disabled={run.isPending} data-testid="rerun-submit">
            {t(run.isPending ? "rerun.running" : cycle ? "rerun.submitFork" : "rerun.submitRerun")}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The dialog's fields over a draft; stateless (a test renders it as is). */
export function RerunForm({
  draft,
  onChange,
  choices,
  problems,
  t,
}: {
  draft: RerunDraft;
  onChange: (next: RerunDraft) => void;
  choices: RerunChoices;
  problems: readonly DraftProblem[];
  t: Translate;
}) {
  const id = useId();
  const set = (patch: Partial<RerunDraft>) => onChange({ ...draft, ...patch });
  const setEdit = (i: number, edit: EditDraft) => set({ edits: draft.edits.map((e, j) => (j === i ? edit : e)) });
  const setPrompt = (i: number, p: PromptOverrideDraft) =>
    set({ prompts: draft.prompts.map((q, j) => (j === i ? p : q)) });
  const invalid = (path: string) => (problemAt(problems, path) ? true : undefined);
  const defaultText = (p: PromptOverrideDraft) => choices.defaults?.[p.locale || choices.botLocale][p.name] ?? "";

  return (
    <div className="rerun-fields">
      <div className="rerun-row">
        <label className="field">
          <span>{t("rerun.name")}</span>
          <input
            className="input input-sm"
            value={draft.name}
            maxLength={200}
            placeholder={t("rerun.namePlaceholder")}
            onChange={(e) => set({ name: e.target.value })}
            autoFocus
            data-testid="rerun-name"
          />
        </label>
        <label className="field">
          <span>{t("rerun.continueWith")}</span>
          <select
            className="input input-sm"
            value={draft.continueWith}
            onChange={(e) => set({ continueWith: continueWithSchema.parse(e.target.value) })}
            data-testid="rerun-continue-with"
          >
            {continueWithSchema.options.map((c) => (
              <option key={c} value={c}>
                {t(`rerun.continueWith.${c}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="check" title={t("rerun.liveReadOnlyToolsTitle")}>
          <input
            type="checkbox"
            checked={draft.liveReadOnlyTools}
            onChange={(e) => set({ liveReadOnlyTools: e.target.checked })}
            data-testid="rerun-live-tools"
          />{" "}
          {t("rerun.liveReadOnlyTools")}
        </label>
      </div>

      {draft.mode === "fork" && (
        <fieldset className="rerun-group" data-testid="fork-edits">
          <legend>{t("rerun.edits")}</legend>
          {draft.edits.length === 0 && <p className="muted small">{t("rerun.noEdits")}</p>}
          {draft.edits.map((edit, i) => (
            <div className="rerun-edit" key={i} data-edit-kind={edit.kind} data-testid="fork-edit">
              <span className="badge badge-muted">{t(`rerun.editKind.${edit.kind}`)}</span>
              <EditFields
                edit={edit}
                onChange={(next) => setEdit(i, next)}
                choices={choices}
                invalid={(field) => invalid(`edits.${i}.${field}`) ?? invalid(`edits.${i}`)}
                idPrefix={`${id}-e${i}`}
                t={t}
              />
              <button
                type="button"
                className="btn btn-sm btn-icon"
                onClick={() => set({ edits: draft.edits.filter((_, j) => j !== i) })}
                aria-label={t("rerun.removeEdit")}
                title={t("rerun.removeEdit")}
              >
                ×
              </button>
            </div>
          ))}
          <div className="tool-run-actions">
            {EDIT_KINDS.map((kind) => (
              <button
                key={kind}
                type="button"
                className="btn btn-sm"
                onClick={() => set({ edits: [...draft.edits, newEdit(kind)] })}
                data-testid={`add-edit-${kind}`}
              >
                + {t(`rerun.editKind.${kind}`)}
              </button>
            ))}
          </div>
        </fieldset>
      )}

      <fieldset className="rerun-group" data-testid="fork-settings">
        <legend>{t("rerun.settings")}</legend>
        <label className="field-inline">
          <span>{t("rerun.talkValue")}</span>
          <input
            className="input input-sm rerun-number"
            inputMode="decimal"
            value={draft.talkValue}
            placeholder={choices.talkValue === null ? "" : String(choices.talkValue)}
            aria-invalid={invalid("talkValue")}
            onChange={(e) => set({ talkValue: e.target.value })}
            data-testid="fork-talk-value"
          />
        </label>
        {draft.prompts.map((p, i) => (
          <div className="rerun-edit rerun-prompt" key={i} data-testid="fork-prompt">
            <select
              className="input input-sm"
              value={p.name}
              aria-label={t("rerun.promptName")}
              aria-invalid={invalid(`prompts.${i}.name`)}
              onChange={(e) => {
                const next = { ...p, name: e.target.value };
                // A fresh override starts from the template it replaces.
                setPrompt(i, p.text && p.text !== defaultText(p) ? next : { ...next, text: defaultText(next) });
              }}
            >
              <option value="">{t("rerun.pick")}</option>
              {choices.promptNames.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <select
              className="input input-sm"
              value={p.locale}
              aria-label={t("rerun.promptLocale")}
              onChange={(e) => {
                const locale = PROMPT_OVERRIDE_LOCALES.find((l) => l === e.target.value) ?? "";
                setPrompt(i, { ...p, locale });
              }}
            >
              {PROMPT_OVERRIDE_LOCALES.map((l) => (
                <option key={l} value={l}>
                  {l || t("rerun.promptAnyLocale")}
                </option>
              ))}
            </select>
            <textarea
              className="input rerun-text"
              rows={4}
              value={p.text}
              aria-label={t("rerun.promptText")}
              aria-invalid={invalid(`prompts.${i}.text`)}
              onChange={(e) => setPrompt(i, { ...p, text: e.target.value })}
            />
            <button
              type="button"
              className="btn btn-sm btn-icon"
              onClick={() => set({ prompts: draft.prompts.filter((_, j) => j !== i) })}
              aria-label={t("rerun.removePrompt")}
              title={t("rerun.removePrompt")}
            >
              ×
            </button>
          </div>
        ))}
        <div className="tool-run-actions">
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => set({ prompts: [...draft.prompts, { name: "", locale: "", text: "" }] })}
            data-testid="add-prompt"
          >
            + {t("rerun.addPrompt")}
          </button>
        </div>
      </fieldset>
    </div>
  );
}

function EditFields({
  edit,
  onChange,
  choices,
  invalid,
  idPrefix,
  t,
}: {
  edit: EditDraft;
  onChange: (next: EditDraft) => void;
  choices: RerunChoices;
  invalid: (field: string) => true | undefined;
  idPrefix: string;
  t: Translate;
}) {
  switch (edit.kind) {
    case "drop_message":
      return (
        <select
          className="input input-sm grow"
          value={edit.messageId}
          aria-label={t("rerun.dropWhich")}
          aria-invalid={invalid("messageId")}
          onChange={(e) => onChange({ ...edit, messageId: e.target.value })}
          data-testid="edit-message"
        >
          <option value="">{t("rerun.pick")}</option>
          {choices.messages.map((m) => (
            <option key={m.messageId} value={m.messageId}>
              {`${m.later ? "↓ " : ""}${m.speaker}: ${clip(m.text)}`}
            </option>
          ))}
        </select>
      );
    case "add_message":
      return (
        <div className="rerun-edit-fields grow">
          <input
            className="input input-sm"
            list={`${idPrefix}-speakers`}
            value={edit.userName}
            maxLength={200}
            placeholder={t("rerun.userName")}
            aria-label={t("rerun.userName")}
            aria-invalid={invalid("userName")}
            onChange={(e) => {
              const known = choices.speakers.find((s) => s.name === e.target.value.trim());
              onChange({ ...edit, userName: e.target.value, userId: known?.userId ?? "" });
            }}
            data-testid="edit-user-name"
          />
          <datalist id={`${idPrefix}-speakers`}>
            {choices.speakers.map((s) => (
              <option key={s.name} value={s.name} />
            ))}
          </datalist>
          <textarea
            className="input rerun-text"
            rows={2}
            value={edit.text}
            maxLength={20_000}
            placeholder={t("rerun.messageText")}
            aria-label={t("rerun.messageText")}
            aria-invalid={invalid("text")}
            onChange={(e) => onChange({ ...edit, text: e.target.value })}
            data-testid="edit-text"
          />
          <label className="check">
            <input
              type="checkbox"
              checked={edit.atBot}
              onChange={(e) => onChange({ ...edit, atBot: e.target.checked })}
            />{" "}
            {t("rerun.atBot")}
          </label>
        </div>
      );
    case "tool_output":
      return (
        <div className="rerun-edit-fields grow">
          <select
            className="input input-sm"
            value={edit.toolCallId}
            aria-label={t("rerun.toolCallWhich")}
            aria-invalid={invalid("toolCallId")}
            onChange={(e) => {
              const call = choices.toolCalls.find((c) => c.id === e.target.value);
              onChange({ ...edit, toolCallId: e.target.value, content: edit.content || (call?.result ?? "") });
            }}
            data-testid="edit-tool-call"
          >
            <option value="">{choices.toolCalls.length ? t("rerun.pick") : t("rerun.noToolCalls")}</option>
            {choices.toolCalls.map((c) => (
              <option key={c.id} value={c.id}>
                {`${c.name} · ${c.id}`}
              </option>
            ))}
          </select>
          <textarea
            className="input rerun-text"
            rows={3}
            value={edit.content}
            maxLength={100_000}
            placeholder={t("rerun.toolOutput")}
            aria-label={t("rerun.toolOutput")}
            onChange={(e) => onChange({ ...edit, content: e.target.value })}
            data-testid="edit-tool-output"
          />
          <label className="check">
            <input
              type="checkbox"
              checked={edit.success}
              onChange={(e) => onChange({ ...edit, success: e.target.checked })}
            />{" "}
            {t("rerun.toolSucceeded")}
          </label>
        </div>
      );
    case "tool_off":
      return (
        <select
          className="input input-sm grow"
          value={edit.toolName}
          aria-label={t("rerun.toolOffWhich")}
          aria-invalid={invalid("toolName")}
          onChange={(e) => onChange({ ...edit, toolName: e.target.value })}
          data-testid="edit-tool"
        >
          <option value="">{choices.tools.length ? t("rerun.pick") : t("rerun.noTools")}</option>
          {choices.tools.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      );
  }
}

"use client";
// Running a tool by hand: a form generated from its parameters schema (or raw JSON), the context
// (the neutral operator context, or a session), the server's per-field errors, a confirmation for a
// destructive tool (the server answers 409 needsConfirm; the run is sent again with confirm), and
// the result.
import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import type { ToolView } from "../../lib/api/schemas";
import { useT } from "../../lib/client/react/use-locale";
import { sessionLabelText, type SessionLabelSource } from "../../lib/client/session-label";
import { ApiRequestError, api } from "../../lib/client/api";
import {
  addRow,
  buildToolForm,
  initialValues,
  parseRawArguments,
  removeRow,
  serverFieldErrors,
  setValueAt,
  toArguments,
  valuesFromArguments,
  type ObjectValue,
} from "../../lib/client/tool-form";
import type { ToolExecutionResult } from "../../lib/tools/schemas";
import { describeError } from "../ui/States";
import { ToolFormFields } from "./ToolFormFields";
import { ToolResultView } from "./ToolResultView";

type Args = Record<string, unknown>;

interface Props {
  tool: ToolView;
  sessions: readonly SessionLabelSource[];
}

export function ToolRunPanel({ tool, sessions }: Props) {
  const t = useT();
  const idPrefix = useId();
  const form = useMemo(() => buildToolForm(tool.parametersSchema), [tool.parametersSchema]);
  const fields = form.ok ? form.fields : [];
  const [mode, setMode] = useState<"form" | "json">(form.ok ? "form" : "json");
  const [values, setValues] = useState<ObjectValue>(() => initialValues(fields));
  const [raw, setRaw] = useState("{}");
  const [sessionId, setSessionId] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState("");
  const [confirming, setConfirming] = useState<Args | null>(null);
  const [result, setResult] = useState<ToolExecutionResult | null>(null);

  const run = useMutation({
    mutationFn: (v: { args: Args; confirm: boolean }) =>
      api.invokeTool(tool.name, {
        arguments: v.args,
        ...(sessionId ? { sessionId } : {}),
        ...(v.confirm ? { confirm: true } : {}),
      }),
    onMutate: () => {
      setErrors({});
      setProblem("");
      setResult(null);
    },
    onSuccess: (answer) => setResult(answer.result),
    onError: (error, v) => {
      if (error instanceof ApiRequestError && error.needsConfirm) return setConfirming(v.args);
      if (error instanceof ApiRequestError && error.status === 400 && error.fields.length) {
        setErrors(serverFieldErrors(error.fields));
        return setProblem(error.message);
      }
      setProblem(describeError(error));
    },
  });

  const currentArgs = (): Args | null => {
    if (mode === "json") {
      const parsed = parseRawArguments(raw);
      if (!parsed.ok) {
        setProblem(parsed.error);
        return null;
      }
      return parsed.args;
    }
    const out = toArguments(fields, values);
    if (!out.ok) {
      setErrors(out.errors);
      setProblem(t("run.fieldsInvalid"));
      return null;
    }
    return out.args;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setErrors({});
    setProblem("");
    const args = currentArgs();
    if (args) run.mutate({ args, confirm: false });
  };

  const switchMode = (next: "form" | "json") => {
    if (next === mode) return;
    if (next === "json") {
      const out = toArguments(fields, values);
      setRaw(JSON.stringify(out.ok ? out.args : {}, null, 2));
    } else {
      const parsed = parseRawArguments(raw);
      if (!parsed.ok) return setProblem(t("run.fixJson", { error: parsed.error }));
      setValues(valuesFromArguments(fields, parsed.args));
    }
    setErrors({});
    setProblem("");
    setMode(next);
  };

  return (
    <div className="tool-run" data-testid="tool-run" aria-label={t("run.region", { name: tool.name })} role="region">
      <form onSubmit={submit} noValidate>
        <div className="tool-run-head">
          <label className="field-inline">
            <span>{t("run.in")}</span>
            <select
              className="input input-sm"
              value={sessionId}
              onChange={(e) => setSessionId(e.target.value)}
              aria-label={t("run.context")}
              data-testid="run-context"
            >
              <option value="">{t("run.neutral")}</option>
              {sessions.map((s) => (
                <option key={s.id} value={s.id}>
                  {t("run.session", { name: sessionLabelText(s.id, s) })}
                </option>
              ))}
            </select>
          </label>
          <span className="grow" />
          <div className="seg" role="group" aria-label={t("run.editor")}>
            <button
              type="button"
              className={mode === "form" ? "active" : ""}
              aria-pressed={mode === "form"}
              disabled={!form.ok}
              title={form.ok ? undefined : t("run.noForm", { reason: form.reason })}
              onClick={() => switchMode("form")}
            >
              {t("run.form")}
            </button>
            <button
              type="button"
              className={mode === "json" ? "active" : ""}
              aria-pressed={mode === "json"}
              onClick={() => switchMode("json")}
            >
              {t("run.json")}
            </button>
          </div>
        </div>
        {!form.ok && <p className="muted small">{t("run.formCannot", { reason: form.reason })}</p>}
        {mode === "form" ? (
          <ToolFormFields
            fields={fields}
            idPrefix={idPrefix}
            values={values}
            errors={errors}
            onChange={(path, value) => setValues((v) => setValueAt(v, path, value))}
            onAddRow={(path, field) => setValues((v) => addRow(v, path, field))}
            onRemoveRow={(path, index) => setValues((v) => removeRow(v, path, index))}
          />
        ) : (
          <div className="tf-field">
            <label htmlFor={`${idPrefix}-raw`}>{t("run.rawLabel")}</label>
            <textarea
              id={`${idPrefix}-raw`}
              className="input mono"
              rows={8}
              value={raw}
              onChange={(e) => setRaw(e.target.value)}
              data-testid="run-raw"
            />
          </div>
        )}
        {(problem || errors[""]) && (
          <div className="ack ack-failed text" role="alert" data-testid="run-problem">
            {problem || errors[""]}
          </div>
        )}
        <div className="tool-run-actions">
          <button className="btn btn-sm btn-primary" disabled={run.isPending}>
            {run.isPending ? t("run.running") : t("run.run", { name: tool.name })}
          </button>
        </div>
      </form>
      {confirming && (
        <ConfirmRun
          toolName={tool.name}
          context={
            sessionId
              ? t("run.session", {
                  name: sessionLabelText(
                    sessionId,
                    sessions.find((s) => s.id === sessionId),
                  ),
                })
              : t("run.neutralContext")
          }
          onConfirm={() => {
            const args = confirming;
            setConfirming(null);
            run.mutate({ args, confirm: true });
          }}
          onCancel={() => setConfirming(null)}
        />
      )}
      {result && <ToolResultView result={result} />}
    </div>
  );
}

/** A modal dialog (focus kept inside, Escape cancels); Cancel has the focus first. */
function ConfirmRun(props: { toolName: string; context: string; onConfirm: () => void; onCancel: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // The safe choice has the focus: Enter right away runs nothing.
    cancel.current?.focus();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="confirm-run-title"
      data-testid="confirm-run"
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id="confirm-run-title">{t("run.confirmTitle", { name: props.toolName })}</h2>
      <p className="text">{t("run.confirmBody", { name: props.toolName, context: props.context })}</p>
      <div className="tool-run-actions">
        <button ref={cancel} type="button" className="btn btn-sm" onClick={props.onCancel}>
          {t("run.cancel")}
        </button>
        <button type="button" className="btn btn-sm btn-primary" onClick={props.onConfirm}>
          {t("run.anyway")}
        </button>
      </div>
    </dialog>
  );
}

"use client";
// Archive / delete one session: a modal dialog (Escape and Cancel close it, Cancel has the focus
// first) with the reason the audit keeps, required to delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { SessionSummary } from "../../lib/api/schemas";
import { api } from "../../lib/client/api";
import { useT } from "../../lib/client/react/use-locale";
import { queryKeys } from "../../lib/client/query-keys";
import { describeError } from "../ui/States";

export type SessionAction = "archive" | "delete";

export function SessionActionDialog(props: { session: SessionSummary; action: SessionAction; onClose: () => void }) {
  const { session, action, onClose } = props;
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [reason, setReason] = useState("");
  const queryClient = useQueryClient();
  const run = useMutation({
    mutationFn: async () => {
      if (action === "delete") await api.deleteSession(session.id, reason.trim());
      else await api.archiveSession(session.id, reason.trim());
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      onClose();
    },
  });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    cancel.current?.focus();
    return () => dialog?.close();
  }, []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run.mutate();
  };
  const name = session.name || session.id;
  const needsReason = action === "delete";
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="session-action-title"
      data-testid={`confirm-${action}`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form className="session-action-form" onSubmit={submit}>
        <h2 id="session-action-title">{t(`sessions.${action}.title`, { name })}</h2>
        <p className="text">{t(`sessions.${action}.body`)}</p>
        <label className="field">
          <span>{t(needsReason ? "sessions.reason.required" : "sessions.reason.optional")}</span>
          <input
            className="input"
            value={reason}
            maxLength={500}
            required={needsReason}
            onChange={(e) => setReason(e.target.value)}
            aria-label={t("sessions.reason")}
          />
        </label>
        {run.isError && <p className="form-error">{describeError(run.error)}</p>}
        <div className="tool-run-actions">
          <button ref={cancel} type="button" className="btn btn-sm" onClick={onClose}>
            {t("sessions.cancel")}
          </button>
          <button
            type="submit"
            className={`btn btn-sm ${needsReason ? "btn-danger" : "btn-primary"}`}
            disabled={run.isPending || (needsReason && !reason.trim())}
          >
            {t(`sessions.${action}.confirm`)}
          </button>
        </div>
      </form>
    </dialog>
  );
}

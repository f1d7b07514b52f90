"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api } from "../../lib/client/api";
import { useT } from "../../lib/client/react/use-locale";
import { queryKeys } from "../../lib/client/query-keys";
import { describeError } from "../ui/States";

export function CreateSessionForm() {
  const t = useT();
  const [name, setName] = useState("");
  const [group, setGroup] = useState(true);
  const router = useRouter();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => api.createSession({ name: name.trim() || undefined, isGroupChat: group }),
    onSuccess: ({ id }) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      router.push(`/sessions/${encodeURIComponent(id)}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="create-form" onSubmit={submit}>
      <input
        className="input"
        placeholder={t("sessions.newNameHint")}
        value={name}
        maxLength={200}
        onChange={(e) => setName(e.target.value)}
        aria-label={t("sessions.newName")}
      />
      <label className="check">
        <input type="checkbox" checked={group} onChange={(e) => setGroup(e.target.checked)} /> {t("sessions.groupChat")}
      </label>
      <button className="btn btn-primary" disabled={create.isPending}>
        {t(create.isPending ? "sessions.creating" : "sessions.create")}
      </button>
      {create.isError && <span className="form-error">{describeError(create.error)}</span>}
    </form>
  );
}

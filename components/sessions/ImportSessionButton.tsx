"use client";
// The sessions overview's import: a file picker whose bundle is posted to POST /api/sessions/import;
// the new read-only session opens once it is in.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef } from "react";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { describeError } from "../ui/States";

export function ImportSessionButton() {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const router = useRouter();
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: (file: File) => api.importSession(file),
    onSuccess: ({ id }) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      router.push(`/sessions/${encodeURIComponent(id)}`);
    },
  });
  return (
    <span className="import-session">
      <input
        ref={input}
        type="file"
        accept=".ndjson,application/x-ndjson"
        hidden
        data-testid="import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file) upload.mutate(file);
        }}
      />
      <button className="btn" disabled={upload.isPending} onClick={() => input.current?.click()}>
        {upload.isPending ? t("transfer.importing") : t("transfer.import")}
      </button>
      {upload.isError && <span className="form-error">{describeError(upload.error)}</span>}
    </span>
  );
}

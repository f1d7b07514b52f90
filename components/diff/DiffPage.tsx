"use client";
// /diff: two cycles (`a=<sessionId>:<cycleId>&b=…`) or two sessions (`a=<sessionId>&b=…`) compared
// by GET /api/diff. The pair can be typed in; the page's address is the diff's link.
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api, ApiRequestError } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { diffHref, parseDiffRef } from "../../lib/rerun/diff-api";
import { ErrorState, Loading } from "../ui/States";
import { CycleDiffView } from "./CycleDiffView";
import { SessionDiffView } from "./SessionDiffView";

export function DiffPage({ a, b }: { a: string; b: string }) {
  const t = useT();
  const router = useRouter();
  const [refA, setRefA] = useState(a);
  const [refB, setRefB] = useState(b);
  const diff = useQuery({
    queryKey: queryKeys.diff(a, b),
    queryFn: () => api.diff(parseDiffRef(a), parseDiffRef(b)),
    enabled: a !== "" && b !== "",
    retry: false,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (refA.trim() && refB.trim()) router.push(diffHref(parseDiffRef(refA.trim()), parseDiffRef(refB.trim())));
  };
  const title =
    diff.data?.kind === "session"
      ? t("diff.titleSessions")
      : diff.data?.kind === "cycle"
        ? t("diff.titleCycles")
        : t("diff.title");
  return (
    <div className="page page-diff" data-testid="diff-page">
      <div className="page-head">
        <h1>{title}</h1>
      </div>
      <form className="toolbar diff-refs" onSubmit={submit}>
        <input
          className="input input-sm mono"
          aria-label={t("diff.refA")}
          placeholder={t("diff.refA")}
          value={refA}
          onChange={(e) => setRefA(e.target.value)}
          maxLength={200}
        />
        <input
          className="input input-sm mono"
          aria-label={t("diff.refB")}
          placeholder={t("diff.refB")}
          value={refB}
          onChange={(e) => setRefB(e.target.value)}
          maxLength={200}
        />
        <button className="btn btn-sm btn-primary" type="submit">
          {t("diff.compare")}
        </button>
      </form>
      {(a === "" || b === "") && <p className="small muted">{t("diff.intro")}</p>}
      {diff.isLoading && <Loading label={t("diff.loading")} />}
      {diff.isError && (
        <ErrorState
          title={t("diff.loadError")}
          error={diff.error}
          action={diff.error instanceof ApiRequestError && <span className="mono small">{diff.error.message}</span>}
        />
      )}
      {diff.data?.kind === "cycle" && <CycleDiffView diff={diff.data} />}
      {diff.data?.kind === "session" && <SessionDiffView diff={diff.data} />}
    </div>
  );
}

"use client";
// The sessions derived from this one (re-runs and what-if forks) as branches of its replay: kind, fork
// cycle, edits, and whether it reproduced the original or where it diverged; each opens its replay.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ApiRequestError } from "../../lib/client/api";
import { branchesQueryKey, fetchBranches } from "../../lib/client/api-rerun";
import { useT } from "../../lib/client/react/use-locale";
import { cycleNumber, editPhrase, replayHref } from "../../lib/client/rerun-view";
import { formatClock } from "../../lib/client/format";
import type { Timeline } from "../../lib/client/timeline";
import type { SessionBranch } from "../../lib/rerun/schemas";
import { Badge } from "../ui/Badge";
import { describeError } from "../ui/States";
import { DivergenceBadge } from "./OriginBanner";

export function BranchesPanel({
  sessionId,
  timeline,
}: {
  sessionId: string;
  timeline: Pick<Timeline, "items"> | null;
}) {
  const t = useT();
  const branches = useQuery({
    queryKey: branchesQueryKey(sessionId),
    queryFn: () => fetchBranches(sessionId),
    // A branch still running (started elsewhere: the CLI, another operator) is looked at again until it ends.
    refetchInterval: (q) => (q.state.data?.some((b) => b.origin.divergence === undefined) ? 3_000 : false),
  });
  // An unknown session: the replay itself says so.
  if (branches.error instanceof ApiRequestError && branches.error.status === 404) return null;
  if (branches.isError)
    return (
      <p className="form-error small" data-testid="branches-error">
        {t("rerun.branchesError")}: {describeError(branches.error)}
      </p>
    );
  if (!branches.data?.length) return null;
  return <BranchList branches={branches.data} timeline={timeline} />;
}

/** Grouped by fork cycle, in the original's order (whole-session re-runs first), newest first within. */
export function BranchList({
  branches,
  timeline,
}: {
  branches: readonly SessionBranch[];
  timeline: Pick<Timeline, "items"> | null;
}) {
  const t = useT();
  const groups = new Map<string, SessionBranch[]>();
  for (const b of branches) {
    const key = b.origin.fromCycle ?? "";
    groups.set(key, [...(groups.get(key) ?? []), b]);
  }
  const order = [...groups.keys()].sort(
    (a, b) => (cycleNumber(timeline, a) ?? (a ? Infinity : 0)) - (cycleNumber(timeline, b) ?? (b ? Infinity : 0)),
  );
  return (
    <section className="branches" aria-label={t("rerun.branches")} data-testid="branches">
      <div className="col-title">
        {t("rerun.branches")} <span className="muted">{branches.length.toLocaleString()}</span>
      </div>
      <ul className="branch-tree">
        {order.map((cycle) => {
          const n = cycleNumber(timeline, cycle || null);
          return (
            <li key={cycle} className="branch-group">
              <span className="muted small">
                {cycle
                  ? n !== null
                    ? t("rerun.fromCycleN", { n, cycle })
                    : t("rerun.fromCycleId", { cycle })
                  : t("rerun.wholeSession")}
              </span>
              <ul>
                {groups.get(cycle)?.map((b) => (
                  <BranchRow key={b.id} branch={b} />
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function BranchRow({ branch }: { branch: SessionBranch }) {
  const t = useT();
  const { origin } = branch;
  return (
    <li className="branch" data-testid="branch" data-branch-id={branch.id} data-kind={origin.kind}>
      <Badge tone={origin.kind === "fork" ? "accent" : "info"}>{t(`rerun.kind.${origin.kind}`)}</Badge>
      <Link href={replayHref(branch.id)} className="ellipsis" title={branch.id}>
        {branch.name}
      </Link>
      <span className="muted small mono">{formatClock(branch.createdAt)}</span>
      {origin.edits.length > 0 && (
        <span
          className="muted small ellipsis"
          title={origin.edits.map((e) => t(editPhrase(e).key, editPhrase(e).vars)).join("\n")}
        >
          {t("rerun.editsCount", { count: origin.edits.length })}:{" "}
          {t(editPhrase(origin.edits[0]).key, editPhrase(origin.edits[0]).vars)}
          {origin.edits.length > 1 ? " …" : ""}
        </span>
      )}
      <span className="grow" />
      <DivergenceBadge origin={origin} />
    </li>
  );
}

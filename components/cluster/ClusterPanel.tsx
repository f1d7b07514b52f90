"use client";
// /cluster: the nodes of a cluster (GET /api/cluster), each with its state, the sessions it owns and
// how fresh its leases are, polled about as often as leases are renewed; a single process shows
// itself alone and says how to make a cluster.
import { useQuery } from "@tanstack/react-query";
import type { ClusterNode, ClusterStatus } from "../../lib/api/cluster";
import { api } from "../../lib/client/api";
import { clusterTotals, leaseHealth, sortedNodes, type LeaseHealth } from "../../lib/client/cluster";
import { formatDateTime, formatDuration } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { Badge } from "../ui/Badge";
import { ErrorState, Loading } from "../ui/States";

/** Leases renew every third of their time (2 s by default): poll as often. */
const POLL_MS = 2_000;

export function ClusterPanel() {
  const t = useT();
  const status = useQuery({ queryKey: queryKeys.cluster, queryFn: api.cluster, refetchInterval: POLL_MS });
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("nav.cluster")}</h1>
        {status.data && <ClusterSummary status={status.data} />}
      </div>
      {status.isPending && <Loading label={t("cluster.loading")} />}
      {status.isError && (
        <ErrorState
          title={t("cluster.loadError")}
          error={status.error}
          action={
            <button className="btn" onClick={() => void status.refetch()}>
              {t("cluster.retry")}
            </button>
          }
        />
      )}
      {status.data?.mode === "single" && (
        <p className="muted" data-testid="cluster-single">
          {t("cluster.single")}
        </p>
      )}
      {status.data && <NodesTable status={status.data} />}
    </div>
  );
}

function ClusterSummary({ status }: { status: ClusterStatus }) {
  const t = useT();
  const totals = clusterTotals(status);
  return (
    <span className="muted" data-testid="cluster-summary">
      {t("cluster.summary", { live: totals.live, total: status.nodes.length, owned: totals.owned })}
      {status.leaseTtlMs !== null && <> · {t("cluster.leaseTtl", { ttl: formatDuration(status.leaseTtlMs) })}</>}
      {status.unowned > 0 && (
        <>
          {" · "}
          <span className="warn-text" data-testid="cluster-unowned">
            {t("cluster.unowned", { count: status.unowned })}
          </span>
        </>
      )}
    </span>
  );
}

const leaseClass: Record<LeaseHealth, string | undefined> = {
  none: undefined,
  fresh: undefined,
  late: "warn-text",
  expired: "bad-text",
};

function NodesTable({ status }: { status: ClusterStatus }) {
  const t = useT();
  const leaseTitle = (health: LeaseHealth) =>
    health === "late" ? t("cluster.lease.late") : health === "expired" ? t("cluster.lease.expired") : undefined;
  return (
    <table className="table cluster-table" data-testid="cluster-table">
      <thead>
        <tr>
          <th>{t("cluster.col.node")}</th>
          <th>{t("cluster.col.state")}</th>
          <th className="num">{t("cluster.col.sessions")}</th>
          <th className="num">{t("cluster.col.leaseAge")}</th>
          <th className="num">{t("cluster.col.lastSeen")}</th>
          <th>{t("cluster.col.started")}</th>
        </tr>
      </thead>
      <tbody>
        {sortedNodes(status.nodes).map((node) => {
          const health = leaseHealth(node, status.leaseTtlMs);
          return (
            <tr key={node.id} data-testid="cluster-node" data-node-id={node.id} data-state={node.state}>
              <td>
                <span className="mono">{node.id}</span>
                {node.self && (
                  <>
                    {" "}
                    <Badge tone="info">{t("cluster.self")}</Badge>
                  </>
                )}
                <div className="sub mono ellipsis" title={node.url}>
                  {node.url}
                </div>
              </td>
              <td>
                <NodeState node={node} />
              </td>
              <td className="num">{node.sessions.toLocaleString()}</td>
              <td
                className={["num", leaseClass[health]].filter(Boolean).join(" ")}
                data-testid="lease-age"
                data-health={health}
                title={leaseTitle(health)}
              >
                {formatDuration(node.leaseAgeMs)}
              </td>
              <td className="num">{formatDuration(node.lastSeenMs)}</td>
              <td>{formatDateTime(node.startedAt)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function NodeState({ node }: { node: ClusterNode }) {
  const t = useT();
  return (
    <Badge tone={node.state === "live" ? "ok" : "bad"} title={node.state}>
      {t(node.state === "live" ? "cluster.state.live" : "cluster.state.gone")}
    </Badge>
  );
}

"use client";
// /platforms: every OneBot v11 connection (reverse and forward) with its health, polled from
// GET /api/platforms and refetched when one connects or drops. Everything a connection reports (nickname, implementation, errors) comes from
// the implementation and is rendered as text.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "../../lib/client/api";
import { formatAgo, formatDateTime } from "../../lib/client/format";
import { heartbeatHealth } from "../../lib/client/platforms";
import { queryKeys } from "../../lib/client/query-keys";
import { useNow } from "../../lib/client/react/use-now";
import { usePlatformEvents } from "../../lib/client/react/use-platform-events";
import { connectionStateLabel } from "../../lib/i18n/platforms";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import type { InboundCounters, PlatformConnection } from "../../lib/platforms/status";
import { Badge, type Tone } from "../ui/Badge";
import { AudienceForm } from "./AudienceForm";
import { RequestsList } from "./RequestsList";
import { EmptyState, ErrorState, Loading } from "../ui/States";

/** Connections change state within seconds (heartbeats, reconnects): poll about as often. */
const POLL_MS = 2_000;

export function PlatformsPanel() {
  const t = useT();
  const list = useQuery({ queryKey: queryKeys.platforms, queryFn: api.platforms, refetchInterval: POLL_MS });
  usePlatformEvents();
  const connections = list.data?.connections ?? [];
  const open = connections.filter((c) => c.state === "open").length;
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("nav.platforms")}</h1>
        {list.data && (
          <span className="muted" data-testid="platforms-count">
            {t("platforms.connected", { open, total: connections.length })}
          </span>
        )}
      </div>
      {list.isPending && <Loading label={t("platforms.loading")} />}
      {list.isError && (
        <ErrorState
          title={t("platforms.loadError")}
          error={list.error}
          action={
            <button className="btn" onClick={() => void list.refetch()}>
              {t("platforms.retry")}
            </button>
          }
        />
      )}
      {list.isSuccess && connections.length === 0 && <HowToConnect />}
      {connections.length > 0 && <ConnectionsTable rows={connections} />}
      {list.data?.inbound && <InboundSummary counters={list.data.inbound} />}
      {list.data?.requests && <RequestsList requests={list.data.requests} />}
      {list.data?.audience && <AudienceForm audience={list.data.audience} />}
    </div>
  );
}

/** What became of the events: taken, repeats, denied, and the ones that went wrong (those in red). */
const INBOUND_SHOWN = [
  "ingested",
  "notes",
  "recalls",
  "requests",
  "duplicates",
  "own",
  "denied",
  "ignored",
  "malformed",
  "failed",
] as const;
/** Counters that mean something went wrong: red when not zero. */
const INBOUND_BAD = new Set<string>(["malformed", "failed"]);

function InboundSummary({ counters }: { counters: InboundCounters }) {
  const t = useT();
  const items = INBOUND_SHOWN.map((key): [label: string, value: number, tone: Tone] => [
    t(`platforms.inbound.${key}`),
    counters[key],
    INBOUND_BAD.has(key) && counters[key] > 0 ? "bad" : "muted",
  ]);
  return (
    <section className="platforms-inbound" data-testid="platforms-inbound">
      <h2>{t("platforms.inbound.title")}</h2>
      <div className="badges">
        {items.map(([label, value, tone]) => (
          <Badge key={label} tone={tone} title={label}>
            {label}: {value.toLocaleString()}
          </Badge>
        ))}
      </div>
    </section>
  );
}

function ConnectionsTable({ rows }: { rows: PlatformConnection[] }) {
  const now = useNow();
  const { locale } = useLocale();
  const t = useT();
  const ago = (ts: number | null) => (ts === null ? "–" : now ? formatAgo(ts, now) : formatDateTime(ts));
  return (
    <table className="table platforms-table" data-testid="platforms-table">
      <thead>
        <tr>
          <th>{t("platforms.col.bot")}</th>
          <th>{t("platforms.col.mode")}</th>
          <th>{t("platforms.col.implementation")}</th>
          <th>{t("platforms.col.state")}</th>
          <th>{t("platforms.col.since")}</th>
          <th>{t("platforms.col.heartbeat")}</th>
          <th className="num">{t("platforms.col.eventsIn")}</th>
          <th className="num">{t("platforms.col.actionsOut")}</th>
          <th className="num">{t("platforms.col.errors")}</th>
          <th>{t("platforms.col.lastError")}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => {
          const health = c.state === "open" && now ? heartbeatHealth(c, now) : "none";
          return (
            <tr
              key={`${c.node ?? ""}:${c.mode}:${c.selfId}:${c.address}`}
              data-testid="platform-connection"
              data-self-id={c.selfId}
              data-state={c.state}
            >
              <td>
                <span className="mono">{c.selfId}</span>
                {c.login && <div className="sub text">{c.login.nickname}</div>}
              </td>
              <td>
                {c.mode} · {c.role}
                <div className="sub mono ellipsis" title={c.address}>
                  {c.address}
                </div>
                {c.node && <div className="sub mono ellipsis">{t("platforms.node", { node: c.node })}</div>}
              </td>
              <td className="text">
                {c.implementation ? (
                  `${c.implementation.name} ${c.implementation.version}`
                ) : (
                  <span className="muted">–</span>
                )}
              </td>
              <td>
                <Badge tone={stateTone(c.state)} title={c.state}>
                  {connectionStateLabel(c.state, locale)}
                </Badge>
                {c.backlog?.paused && (
                  <Badge tone="warn" title={t("platforms.pausedHelp")} testId="platform-paused">
                    {t("platforms.paused", { waiting: c.backlog.waiting })}
                  </Badge>
                )}
              </td>
              <td title={c.connectedSince === null ? undefined : formatDateTime(c.connectedSince)}>
                {ago(c.connectedSince)}
              </td>
              <td
                className={health === "stale" ? "warn-text" : undefined}
                data-testid="heartbeat-age"
                data-health={health}
                title={health === "stale" ? t("platforms.staleHeartbeat") : undefined}
              >
                {ago(c.lastHeartbeatAt)}
              </td>
              <td className="num">{c.eventsIn.toLocaleString()}</td>
              <td className="num">{c.actionsOut.toLocaleString()}</td>
              <td className={`num${c.errors > 0 ? " bad-text" : ""}`}>{c.errors.toLocaleString()}</td>
              <td className="platform-error">
                {c.lastError ? <LastError error={c.lastError} /> : <span className="muted">–</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** NapCat's retcode for a wrong access token (its WebSocket server refuses the connection with it). */
const TOKEN_REFUSED = 1403;

/** The last error as the server worded it; an implementation's refusal also by its retcode, with what to check. */
function LastError({ error }: { error: NonNullable<PlatformConnection["lastError"]> }) {
  const t = useT();
  return (
    <>
      {error.retcode !== undefined && (
        <div data-testid="platform-refusal" data-retcode={error.retcode}>
          <Badge tone="bad">{t("platforms.refused", { retcode: String(error.retcode) })}</Badge>
          {error.retcode === TOKEN_REFUSED && <div className="sub">{t("platforms.refusedToken")}</div>}
        </div>
      )}
      <span className="bad-text small text" title={formatDateTime(error.at)}>
        {error.message}
      </span>
    </>
  );
}

function stateTone(state: PlatformConnection["state"]): Tone {
  return state === "open" ? "ok" : state === "connecting" ? "warn" : "bad";
}

function HowToConnect() {
  const t = useT();
  // The address the browser reached is usually the one the implementation can reach too.
  const [host, setHost] = useState("HOST:PORT");
  useEffect(() => setHost(window.location.host), []);
  return (
    <EmptyState title={t("platforms.howto.title")}>
      <p>{t("platforms.howto.intro")}</p>
      <dl className="howto">
        <dt>{t("platforms.howto.reverse")}</dt>
        <dd>
          <code data-testid="reverse-url">ws://{host}/onebot/v11/ws</code> ·{" "}
          <code>platforms.onebot.reverse.enabled</code>, <code>platforms.onebot.accessToken</code> ·{" "}
          <code>maisaka.config.json</code>
        </dd>
        <dt>{t("platforms.howto.forward")}</dt>
        <dd>
          <code>platforms.onebot.forward: [{"{ url, accessToken }"}]</code>
        </dd>
      </dl>
      <p className="muted">
        {t("platforms.howto.docs")} <code>docs/platforms.md</code>
      </p>
    </EmptyState>
  );
}

"use client";
// Friend requests and group invitations the bots received: the policy in force
// (platforms.onebot.requests) and the newest ones recorded, with what came of each. The requester's
// words come from strangers and are rendered as text.
import { formatDateTime } from "../../lib/client/format";
import { useT } from "../../lib/client/react/use-locale";
import type { PlatformRequest, PlatformRequests } from "../../lib/platforms/status";
import { Badge, type Tone } from "../ui/Badge";

const OUTCOME_TONE: Record<PlatformRequest["outcome"], Tone> = { pending: "warn", approved: "ok", failed: "bad" };

export function RequestsList({ requests }: { requests: PlatformRequests }) {
  const t = useT();
  return (
    <section className="platforms-requests" data-testid="platform-requests" data-policy={requests.policy}>
      <h2>{t("platforms.requests.title")}</h2>
      <p className="muted">
        {t(`platforms.requests.policy.${requests.policy}`)} <code>platforms.onebot.requests</code>
      </p>
      {requests.recent.length === 0 ? (
        requests.policy !== "ignore" && <p className="muted">{t("platforms.requests.none")}</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{t("platforms.requests.col.at")}</th>
              <th>{t("platforms.requests.col.request")}</th>
              <th>{t("platforms.requests.col.comment")}</th>
              <th>{t("platforms.requests.col.outcome")}</th>
            </tr>
          </thead>
          <tbody>
            {requests.recent.map((r) => (
              <tr key={`${r.selfId}:${r.flag}:${r.at}`} data-testid="platform-request" data-outcome={r.outcome}>
                <td>{formatDateTime(r.at)}</td>
                <td className="text">
                  {describe(r, t)}
                  <div className="sub mono">{t("platforms.requests.bot", { bot: r.selfId })}</div>
                </td>
                <td className="text">{r.comment || <span className="muted">–</span>}</td>
                <td>
                  <Badge tone={OUTCOME_TONE[r.outcome]}>{t(`platforms.requests.outcome.${r.outcome}`)}</Badge>
                  {r.detail && <div className="sub text">{r.detail}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function describe(r: PlatformRequest, t: ReturnType<typeof useT>): string {
  if (r.kind === "friend") return t("platforms.requests.friend", { user: r.userId });
  const group = r.groupId ?? "?";
  return r.subType === "invite"
    ? t("platforms.requests.invite", { user: r.userId, group })
    : t("platforms.requests.join", { user: r.userId, group });
}

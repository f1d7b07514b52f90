"use client";
import { formatClock } from "../../lib/client/format";
import { useConnection } from "../../lib/client/react/use-connection";
import { useT } from "../../lib/client/react/use-locale";

export function OfflineBanner() {
  const c = useConnection();
  const t = useT();
  if (c.socket === "unauthorized") {
    return (
      <div className="banner banner-bad" role="alert">
        {t("banner.unauthorized", { detail: c.detail || t("banner.unauthorizedDetail") })}{" "}
        <a href="/login">{t("banner.loginAgain")}</a> {t("banner.toResume")}
      </div>
    );
  }
  if (c.socket !== "offline" && c.httpReachable) return null;
  return (
    <div className="banner banner-bad" role="alert" data-testid="offline-banner">
      <strong>{t("banner.lost")}</strong>
      {c.lostAt ? t("banner.since", { time: formatClock(c.lostAt) }) : ""}
      {t("banner.lostBody")}
    </div>
  );
}

"use client";
import { formatClock } from "../../lib/client/format";
import { useConnection } from "../../lib/client/react/use-connection";

export function OfflineBanner() {
  const c = useConnection();
  if (c.socket === "unauthorized") {
    return (
      <div className="banner banner-bad" role="alert">
        The live stream refused your login ({c.detail || "unauthorized"}). <a href="/login">Log in again</a> to resume.
      </div>
    );
  }
  if (c.socket !== "offline" && c.httpReachable) return null;
  return (
    <div className="banner banner-bad" role="alert" data-testid="offline-banner">
      <strong>Connection to the server lost</strong>
      {c.lostAt ? ` since ${formatClock(c.lostAt)}` : ""}. Live updates are paused and reconnect automatically; the view
      then resumes from the last event it holds, so nothing is lost. If this lasts, check your network and that{" "}
      <code>npm start</code> is running.
    </div>
  );
}

"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useConnection } from "../../lib/client/react/use-connection";
import { ThemeToggle } from "./ThemeToggle";

export function Nav({ showLinks }: { showLinks: boolean }) {
  const pathname = usePathname();
  // networkMode "always": the health probe is how an unreachable server is noticed, so it must
  // run even when the browser believes it is offline.
  const health = useQuery({
    queryKey: queryKeys.health,
    queryFn: api.health,
    refetchInterval: 5_000,
    retry: false,
    networkMode: "always",
  });
  const connection = useConnection();
  const queryClient = useQueryClient();
  const active = (href: string) =>
    href === "/" ? pathname === "/" || pathname.startsWith("/sessions") : pathname.startsWith(href);

  const logout = async () => {
    await api.logout().catch(() => undefined);
    queryClient.clear();
    window.location.assign("/login");
  };

  const model = health.data?.model;
  const dot =
    connection.socket === "live"
      ? "ok"
      : connection.socket === "idle"
        ? "idle"
        : connection.socket === "connecting"
          ? "warn"
          : "bad";
  return (
    <header className="nav">
      <Link href="/" className="nav-brand">
        Maisaka
      </Link>
      {showLinks && (
        <nav className="nav-links" aria-label="Main">
          <Link href="/" className={active("/") ? "active" : ""}>
            Sessions
          </Link>
          <Link href="/tools" className={active("/tools") ? "active" : ""}>
            Tools
          </Link>
          <Link href="/platforms" className={active("/platforms") ? "active" : ""}>
            Platforms
          </Link>
          <Link href="/data" className={active("/data") ? "active" : ""}>
            Data
          </Link>
        </nav>
      )}
      <div className="nav-right">
        {model?.simulated && (
          <span
            className="badge badge-sim"
            title="No model endpoint is configured: replies come from the offline deterministic model. Set OPENAI_BASE_URL to use a real one."
            data-testid="simulated-badge"
          >
            SIMULATED
          </span>
        )}
        {model && !model.simulated && (
          <span className="nav-model" title={`model provider ${model.provider}`}>
            {model.name}
          </span>
        )}
        {showLinks && (
          <span
            className={`conn-dot conn-${dot}`}
            title={`live stream: ${connection.socket}${connection.detail ? ` (${connection.detail})` : ""}`}
            aria-label={`live stream ${connection.socket}`}
          />
        )}
        <ThemeToggle />
        {showLinks && (
          <button className="btn btn-ghost btn-sm" onClick={() => void logout()}>
            Log out
          </button>
        )}
      </div>
    </header>
  );
}

"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useAccount } from "../../lib/client/react/use-account";
import { useConnection } from "../../lib/client/react/use-connection";
import { useT } from "../../lib/client/react/use-locale";
import type { MessageKey } from "../../lib/i18n/messages";
import { Icon } from "../ui/Icons";
import { LocaleSwitch } from "./LocaleSwitch";
import { ThemeToggle } from "./ThemeToggle";

/** Watching first (sessions, finding, figures), then what the bot is made of, then who changed what. */
const NAV_LINKS: { href: string; label: MessageKey; adminOnly?: boolean }[] = [
  { href: "/", label: "nav.sessions" },
  { href: "/search", label: "nav.search" },
  { href: "/analytics", label: "nav.analytics" },
  { href: "/usage", label: "nav.usage" },
  { href: "/tools", label: "nav.tools" },
  { href: "/sources", label: "nav.sources" },
  { href: "/platforms", label: "nav.platforms" },
  { href: "/cluster", label: "nav.cluster", adminOnly: true },
  { href: "/data", label: "nav.data" },
  { href: "/settings", label: "nav.settings" },
  { href: "/audit", label: "nav.audit" },
  { href: "/accounts", label: "nav.accounts", adminOnly: true },
];

const MENU_ID = "nav-menu";

/**
 * The header: brand, the model and the live stream's state always in view; the links and the
 * account's controls in a menu that is a row on wide screens and, on narrow ones (CSS decides),
 * folds behind a menu button.
 */
export function Nav({ showLinks }: { showLinks: boolean }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
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
  const account = useAccount();
  const queryClient = useQueryClient();
  const t = useT();
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
  const streamState = t(`nav.stream.${connection.socket}`);
  return (
    <header className={`nav${open ? " nav-open" : ""}`}>
      <a className="skip-link" href="#main">
        {t("nav.skip")}
      </a>
      <Link href="/" className="nav-brand">
        Maisaka
      </Link>
      <div className="nav-status">
        {model?.simulated && (
          <span className="badge badge-sim" title={t("nav.simulatedTitle")} data-testid="simulated-badge">
            SIMULATED
          </span>
        )}
        {model && !model.simulated && (
          <span className="nav-model" title={t("nav.modelTitle", { provider: model.provider })}>
            {model.name}
          </span>
        )}
        {showLinks && (
          <span
            className={`conn-dot conn-${dot}`}
            role="img"
            title={`${t("nav.stream", { state: streamState })}${connection.detail ? ` (${connection.detail})` : ""}`}
            aria-label={t("nav.stream", { state: streamState })}
          />
        )}
      </div>
      <button
        type="button"
        className="btn btn-ghost btn-sm nav-toggle"
        aria-expanded={open}
        aria-controls={MENU_ID}
        onClick={() => setOpen(!open)}
        data-testid="nav-toggle"
      >
        <Icon name="menu" /> {t("nav.menu")}
      </button>
      <div className="nav-menu" id={MENU_ID}>
        {showLinks && (
          <nav className="nav-links" aria-label={t("nav.main")}>
            {NAV_LINKS.filter((link) => !link.adminOnly || account?.role === "admin").map((link) => (
              <Link
                key={link.href}
                href={link.href}
                className={active(link.href) ? "active" : ""}
                aria-current={active(link.href) ? "page" : undefined}
                // A link followed closes the folded menu.
                onClick={() => setOpen(false)}
              >
                {t(link.label)}
              </Link>
            ))}
          </nav>
        )}
        <div className="nav-right">
          <LocaleSwitch />
          <ThemeToggle />
          {showLinks && account && (
            <span
              className="nav-account small"
              data-testid="nav-account"
              title={t("nav.signedInAs", { name: account.name })}
            >
              {account.name}{" "}
              <span className={`badge badge-role badge-role-${account.role}`}>{t(`nav.role.${account.role}`)}</span>
            </span>
          )}
          {showLinks && (
            <button className="btn btn-ghost btn-sm" onClick={() => void logout()}>
              {t("nav.logout")}
            </button>
          )}
        </div>
      </div>
    </header>
  );
}

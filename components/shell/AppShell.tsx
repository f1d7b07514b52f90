"use client";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import type { Locale } from "../../lib/i18n/messages";
import { QueryProvider } from "../../lib/client/react/query-provider";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import { useRevealFocusInTables } from "../../lib/client/react/use-reveal-focus";
import { AuthGate } from "./AuthGate";
import { BudgetBanner } from "./BudgetBanner";
import { Nav } from "./Nav";
import { OfflineBanner } from "./OfflineBanner";

export function AppShell({
  children,
  locale,
  hasLocaleCookie,
}: {
  children: ReactNode;
  locale: Locale;
  hasLocaleCookie: boolean;
}) {
  const pathname = usePathname();
  const open = pathname === "/login";
  useRevealFocusInTables();
  return (
    <QueryProvider>
      <LocaleProvider initial={locale} hasCookie={hasLocaleCookie}>
        <div className="shell">
          <Nav showLinks={!open} />
          <OfflineBanner />
          {!open && <BudgetBanner />}
          <main className="shell-main" id="main" tabIndex={-1}>
            {open ? children : <AuthGate>{children}</AuthGate>}
          </main>
        </div>
      </LocaleProvider>
    </QueryProvider>
  );
}

"use client";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { QueryProvider } from "../../lib/client/react/query-provider";
import { AuthGate } from "./AuthGate";
import { Nav } from "./Nav";
import { OfflineBanner } from "./OfflineBanner";

export function AppShell({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const open = pathname === "/login";
  return (
    <QueryProvider>
      <div className="shell">
        <Nav showLinks={!open} />
        <OfflineBanner />
        <main className="shell-main">{open ? children : <AuthGate>{children}</AuthGate>}</main>
      </div>
    </QueryProvider>
  );
}

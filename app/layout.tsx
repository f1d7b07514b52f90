import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { AppShell } from "../components/shell/AppShell";
import { THEME_COOKIE, parseThemePreference } from "../lib/client/theme";
import "./globals.css";

export const metadata = { title: "Maisaka", description: "Watch and steer the Maisaka reasoning engine" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The pinned theme is rendered on <html> so the first paint already has the right colours.
  const pref = parseThemePreference((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={pref === "system" ? undefined : pref}>
      <body>
        <AppShell>{children}</AppShell>
      </body>
    </html>
  );
}

import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { AppShell } from "../components/shell/AppShell";
import { THEME_COOKIE, parseThemePreference } from "../lib/client/theme";
import { LOCALE_COOKIE, parseLocale } from "../lib/i18n/messages";
import { languagesOfHeader, localeOfLanguages } from "../lib/i18n/negotiate";
import "./globals.css";

export const metadata = { title: "Maisaka", description: "Watch and steer the Maisaka reasoning engine" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The pinned theme is rendered on <html> so the first paint already has the right colours.
  const jar = await cookies();
  const pref = parseThemePreference(jar.get(THEME_COOKIE)?.value);
  // So is the language: the first paint is already in the operator's choice, or (none made yet) in
  // the browser's language.
  const localeCookie = jar.get(LOCALE_COOKIE)?.value;
  const locale =
    localeCookie !== undefined
      ? parseLocale(localeCookie)
      : localeOfLanguages(languagesOfHeader((await headers()).get("accept-language")));
  return (
    <html lang={locale} data-theme={pref === "system" ? undefined : pref}>
      <body>
        <AppShell locale={locale} hasLocaleCookie={localeCookie !== undefined}>
          {children}
        </AppShell>
      </body>
    </html>
  );
}

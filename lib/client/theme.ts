// App theme: "system" follows prefers-color-scheme, or the operator pins light/dark. The choice
// lives in a cookie so the server renders <html data-theme> and there is no flash on load.
import type { Theme } from "./tool-icons";

export type ThemePreference = "system" | Theme;
export const THEME_COOKIE = "maisaka_theme";

export function parseThemePreference(value: string | undefined | null): ThemePreference {
  return value === "light" || value === "dark" ? value : "system";
}

export function effectiveTheme(pref: ThemePreference, systemPrefersDark: boolean): Theme {
  if (pref !== "system") return pref;
  return systemPrefersDark ? "dark" : "light";
}

export function nextPreference(pref: ThemePreference): ThemePreference {
  return pref === "system" ? "dark" : pref === "dark" ? "light" : "system";
}

/** Browser only: pins the preference on <html> and in the cookie. */
export function storeThemePreference(pref: ThemePreference): void {
  const root = document.documentElement;
  if (pref === "system") delete root.dataset.theme;
  else root.dataset.theme = pref;
  const maxAge = pref === "system" ? 0 : 365 * 24 * 3600;
  document.cookie = `${THEME_COOKIE}=${pref}; Path=/; Max-Age=${maxAge}; SameSite=Lax`;
}

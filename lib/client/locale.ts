// The operator's language choice: a cookie (the server renders <html lang> and the first paint in
// that language) and localStorage (a tab whose cookie was cleared keeps the choice).
import { LOCALE_COOKIE, LOCALE_STORAGE_KEY, parseLocale, type Locale } from "../i18n/messages";

export function localeCookie(locale: Locale): string {
  return `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=${365 * 24 * 3600}; SameSite=Lax`;
}

/** Browser only: remembers the choice and marks the document's language. */
export function storeLocale(locale: Locale): void {
  document.documentElement.lang = locale;
  document.cookie = localeCookie(locale);
  try {
    window.localStorage.setItem(LOCALE_STORAGE_KEY, locale);
  } catch {
    // Storage can be disabled (private mode, quota); the cookie still carries the choice.
  }
}

/** The choice kept in localStorage, or null when there is none (or storage is unavailable). */
export function savedLocale(storage: Pick<Storage, "getItem"> | undefined): Locale | null {
  try {
    const value = storage?.getItem(LOCALE_STORAGE_KEY);
    return value ? parseLocale(value) : null;
  } catch {
    return null;
  }
}

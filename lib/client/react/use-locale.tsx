"use client";
// The dashboard's language: given by the server from the cookie (or, before any choice, from the
// browser's Accept-Language), switched from the nav. Components read it with useLocale()/useT();
// without a provider (server-rendered tests) it is the default.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { DEFAULT_LOCALE, translate, type Locale, type Translate } from "../../i18n/messages";
import { localeOfLanguages } from "../../i18n/negotiate";
import { savedLocale, storeLocale } from "../locale";

interface LocaleState {
  locale: Locale;
  setLocale: (locale: Locale) => void;
}

const LocaleContext = createContext<LocaleState>({ locale: DEFAULT_LOCALE, setLocale: () => undefined });

export function LocaleProvider({
  initial,
  hasCookie,
  children,
}: {
  initial: Locale;
  /** Whether the server found the cookie; without it the choice kept in localStorage applies. */
  hasCookie: boolean;
  children: ReactNode;
}) {
  const [locale, setState] = useState(initial);
  const setLocale = useCallback((next: Locale) => {
    storeLocale(next);
    setState(next);
  }, []);
  useEffect(() => {
    if (hasCookie) return;
    const saved = savedLocale(window.localStorage);
    if (saved) {
      if (saved !== initial) setLocale(saved);
      return;
    }
    // No choice yet: the browser's languages, as the page sees them. Followed, not stored, so a
    // browser switched to another language later is followed too.
    const browser = localeOfLanguages(navigator.languages.length ? navigator.languages : [navigator.language]);
    if (browser !== initial) {
      document.documentElement.lang = browser;
      setState(browser);
    }
  }, [hasCookie, initial, setLocale]);
  const value = useMemo(() => ({ locale, setLocale }), [locale, setLocale]);
  return <LocaleContext.Provider value={value}>{children}</LocaleContext.Provider>;
}

export function useLocale(): LocaleState {
  return useContext(LocaleContext);
}

export function useT(): Translate {
  const { locale } = useContext(LocaleContext);
  return useCallback<Translate>((key, vars) => translate(locale, key, vars), [locale]);
}

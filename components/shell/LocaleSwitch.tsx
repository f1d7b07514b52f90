"use client";
// The one language switch: the dashboard's own texts and the stage names follow it.
import { LOCALES, translate, type Locale } from "../../lib/i18n/messages";
import { useLocale } from "../../lib/client/react/use-locale";

export function LocaleSwitch() {
  const { locale, setLocale } = useLocale();
  return (
    <select
      className="input input-sm locale-switch"
      value={locale}
      onChange={(e) => setLocale(e.target.value as Locale)}
      // Findable in either language: the name stays bilingual.
      aria-label="Language / 语言"
      title={translate(locale, "locale.label")}
      data-testid="locale-switch"
    >
      {LOCALES.map((l) => (
        <option key={l} value={l} lang={l}>
          {/* Each language names itself, so the way back is readable whatever is chosen. */}
          {translate(l, "locale.name")}
        </option>
      ))}
    </select>
  );
}

// One text of the dashboard's catalog, and a page's own texts in both locales.

/** A plain text, or plural forms keyed by Intl.PluralRules categories ("other" always present). */
export type Message = string | { one?: string; other: string };

/**
 * A page's texts in English and Chinese: the keys come from the English side, and the compiler makes
 * the Chinese side name exactly the same ones.
 */
export function catalog<K extends string>(
  en: Record<K, Message>,
  zh: NoInfer<Record<K, Message>>,
): { en: Record<K, Message>; zh: Record<K, Message> } {
  return { en, zh };
}

// The browser's language until the operator chooses one: the server reads Accept-Language for the
// first paint, the page navigator.languages. Every Chinese tag (zh, zh-CN, zh-Hans, zh-TW…) gets the
// one Chinese catalog; the first language the dashboard speaks wins, in the browser's order.
import { DEFAULT_LOCALE, type Locale } from "./messages";

function localeOfTag(tag: string): Locale | null {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === "zh") return "zh-CN";
  if (primary === "en") return "en";
  return null;
}

/** The first of the browser's languages the dashboard has, else the default. */
export function localeOfLanguages(tags: readonly string[]): Locale {
  for (const tag of tags) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

/** An Accept-Language header's tags, most preferred first (q=0 left out; malformed parts ignored). */
export function languagesOfHeader(header: string | null | undefined): string[] {
  if (!header) return [];
  const ranked: { tag: string; q: number; at: number }[] = [];
  header.split(",").forEach((part, at) => {
    const [tag = "", ...params] = part.split(";").map((s) => s.trim());
    if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return;
    const qParam = params.find((p) => p.toLowerCase().startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isFinite(q) && q > 0) ranked.push({ tag, q, at });
  });
  // Stable: equal weights keep the header's order.
  return ranked.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.tag);
}

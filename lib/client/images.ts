// Chat images come from the platform (untrusted): only plain http(s) URLs are ever loaded, so a
// message cannot point the dashboard at javascript:, data: or file: content.

/** The URL to load for a chat image, or null when it must not be loaded. */
export function displayableImageUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

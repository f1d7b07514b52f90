// Chat images come from the platform (untrusted): the dashboard loads them only through the server
// (GET /api/sessions/:id/messages/:messageId/images/:index), which fetches the http(s) URL the stored
// message carries. The browser never contacts the platform's hosts, and a message cannot point it at
// javascript:, data: or file: content.

/** The same-origin path of a chat image, or null when it has no URL the server would fetch. */
export function chatImagePath(
  sessionId: string,
  messageId: string,
  index: number,
  url: string | undefined,
): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  } catch {
    return null;
  }
  const id = (s: string) => encodeURIComponent(s);
  return `/api/sessions/${id(sessionId)}/messages/${id(messageId)}/images/${index}`;
}

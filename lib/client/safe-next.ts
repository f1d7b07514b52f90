// Where the login sends the operator afterwards (`/login?next=…`): a path of this site only. The
// check is what the browser will do with the text: it is resolved as a URL against this origin
// (URL parsing drops tabs and newlines, reads "\" as "/", so "/\t/host" and "/\\host" mean "//host")
// and must stay on it; the answer is that URL's own path, never the text itself.

/** A same-origin path for `next`, or "/" for anything else (another origin, a scheme, the login itself). */
export function safeNextPath(next: string | null, origin: string): string {
  // Control characters and backslashes have no place in a path we link to: refused before parsing.
  if (!next?.startsWith("/") || [...next].some((ch) => ch <= "\u001f" || ch === "\u007f" || ch === "\\")) {
    return "/";
  }
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return "/";
  }
  if (url.origin !== new URL(origin).origin) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//host" resolves to the path "//host", which the browser would read as another host again.
  if (path.startsWith("//") || url.pathname === "/login" || url.pathname.startsWith("/login/")) return "/";
  return path;
}

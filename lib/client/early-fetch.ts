// A GET the server-rendered page asks the browser to start before the page's bundle has loaded (a
// `<link rel=preload as=fetch>` in the head, app/usage/page.tsx), so a page's first data is on its
// way while the bundle downloads and hydrates. The client's first request for that exact path
// (lib/client/api.ts) is sent as the preload was, so the browser hands it the preloaded answer.

/** The fetch options the preload matches: same credentials, no headers of its own. */
export const EARLY_FETCH_INIT: RequestInit = { credentials: "same-origin" };

const taken = new Set<string>();

/** Whether `path` was preloaded and not yet asked for (a refetch asks the server again). */
export function takeEarlyFetch(path: string): boolean {
  if (typeof document === "undefined" || taken.has(path)) return false;
  const links = document.head.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="fetch"]');
  const preloaded = [...links].some((l) => l.getAttribute("href") === path);
  if (preloaded) taken.add(path);
  return preloaded;
}

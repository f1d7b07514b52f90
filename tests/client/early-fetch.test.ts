// The usage page's first series request, preloaded from the server-rendered head: the client's first
// GET of that exact path is sent as the preload was (so the browser reuses its answer); once only.
import { afterEach, describe, expect, it, vi } from "vitest";
import { takeEarlyFetch } from "../../lib/client/early-fetch";

afterEach(() => vi.unstubAllGlobals());

describe("early fetch", () => {
  it("is taken once by a request for a preloaded path, and by no other path", () => {
    const path = "/api/usage/series?from=1&to=2&by=task&bucket=day";
    const links = [{ getAttribute: (name: string) => (name === "href" ? path : null) }];
    vi.stubGlobal("document", { head: { querySelectorAll: () => links } });
    expect(takeEarlyFetch("/api/usage/series?from=1&to=3&by=task&bucket=day")).toBe(false);
    expect(takeEarlyFetch(path)).toBe(true);
    expect(takeEarlyFetch(path)).toBe(false);
  });
});

// The dashboard's export/import pieces: the imported badge, and the client's import request (the file
// body sent as NDJSON, the answer parsed with the wire schema).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ImportedBadge } from "../../components/sessions/ImportedBadge";
import { api } from "../../lib/client/api";

afterEach(() => vi.unstubAllGlobals());

describe("export and import in the dashboard", () => {
  it("badges an imported session as read-only", () => {
    const html = renderToStaticMarkup(createElement(ImportedBadge));
    expect(html).toContain('data-testid="imported-badge"');
    expect(html).toContain("read-only (imported)");
  });

  it("posts the picked file as NDJSON and links the export", async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify({ id: "s-1", events: 3, media: 0 }), {
        status: 201,
        headers: { "content-type": "application/json" },
      });
    });
    const file = new Blob(['{"kind":"header"}\n'], { type: "application/x-ndjson" });
    expect(await api.importSession(file)).toEqual({ id: "s-1", events: 3, media: 0 });
    expect(calls[0].url).toBe("/api/sessions/import");
    expect(calls[0].init.method).toBe("POST");
    expect(calls[0].init.body).toBe(file);
    expect((calls[0].init.headers as Record<string, string>)["content-type"]).toBe("application/x-ndjson");
    expect(api.exportUrl("qq:1:group:2")).toBe("/api/sessions/qq%3A1%3Agroup%3A2/export");
  });
});

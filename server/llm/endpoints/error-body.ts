// The SDK reads an error's details only from `{error: {...}}`; vLLM and other FastAPI servers answer
// `{object: "error", message, param, ...}` at the top level, which the SDK reports as "(no body)".
// This fetch wrapper puts such bodies under `error`, so rejections are read the same everywhere.
export function normalizingErrorFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok) return response;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return rebuilt(response, text);
    }
    const top =
      typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    if (top && top.error === undefined && (typeof top.message === "string" || typeof top.detail !== "undefined")) {
      const message = typeof top.message === "string" ? top.message : JSON.stringify(top.detail);
      return rebuilt(response, JSON.stringify({ error: { ...top, message } }));
    }
    return rebuilt(response, text);
  };
}

function rebuilt(response: Response, text: string): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

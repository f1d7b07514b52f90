// Response headers of every answer (pages, API, MCP gateway, Socket.IO's HTTP transport): no MIME
// sniffing, no referrer, no framing by another page. Pages get a Content-Security-Policy with a fresh
// nonce per request: Next (app router) reads the nonce from the *request's* CSP header and puts it on
// every script it renders, so the custom server sets that header on the request before handing it
// to Next, and the same policy on the response. Scripts then come only from this origin or carry the
// nonce; images only from this origin or data: (tool icons go through /api/icons, never a third
// party); connections only to this origin (the API and Socket.IO).
import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

const COMMON: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // For browsers without CSP frame-ancestors.
  "x-frame-options": "DENY",
};

/** JSON and other non-page answers: nothing may run, load or frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The dashboard's policy for one response. Dev mode adds what Next's dev runtime needs (eval for React's debugging). */
export function pageCsp(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ""}`,
    // React renders style attributes into the server HTML; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function setCommonHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(COMMON)) res.setHeader(name, value);
}

export function setApiHeaders(res: ServerResponse): void {
  setCommonHeaders(res);
  res.setHeader("content-security-policy", API_CSP);
}

/** Before a page request goes to Next: the nonce'd policy on the request (for Next) and on the response. */
export function preparePageRequest(req: IncomingMessage, res: ServerResponse, dev: boolean): string {
  const nonce = randomBytes(16).toString("base64");
  const csp = pageCsp(nonce, dev);
  // Next reads only this request header; a client cannot choose the nonce since it is overwritten here.
  req.headers["content-security-policy"] = csp;
  delete req.headers["content-security-policy-report-only"];
  setCommonHeaders(res);
  res.setHeader("content-security-policy", csp);
  return nonce;
}

/** For engine.io's own HTTP answers (polling transport, handshake), which bypass the request handler. */
export function addTransportHeaders(headers: OutgoingHttpHeaders): void {
  for (const [name, value] of Object.entries(COMMON)) headers[name] = value;
  headers["content-security-policy"] = API_CSP;
}

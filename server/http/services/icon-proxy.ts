// Tool icons without the operator's browser contacting third parties. Chosen: a same-origin proxy.
// The catalog rewrites every http(s) icon of a provider to /api/icons/<id>, where <id> names a URL the
// catalog has seen (so this is not an open proxy: nobody can ask it for an arbitrary URL); the server
// fetches it on first view with a timeout, a size cap and an image type check, and caches it. Inlining
// data: URIs at discovery instead would bloat every tool listing and the MCP gateway's answers, and
// fetch icons nobody ever looks at.
//
// SSRF: only http(s); the address every hop connects to (DNS answers included, checked at connect
// time so rebinding cannot slip through) must be public: loopback and private networks only with
// `allowPrivate`, link-local (cloud metadata), multicast and unspecified addresses never; at most
// MAX_REDIRECTS redirects, each checked the same way; no cookies, credentials or referrer are sent;
// the answer must declare an image type and stay under the size cap.
import { createHash } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpGet, type IncomingMessage } from "node:http";
import { request as httpsGet } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

const ICON_PATH = "/api/icons/";

/** Image types an icon may have; SVG is served under a sandboxing CSP (see the route). */
const ICON_MIME_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/gif",
  "image/jpeg",
  "image/webp",
  "image/avif",
  "image/svg+xml",
  "image/x-icon",
  "image/vnd.microsoft.icon",
]);

export interface IconProxyOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Fetch from loopback and private networks too (tests; a local-only setup). */
  allowPrivate: boolean;
  /** Known icon URLs kept (least recently listed dropped first). */
  maxKnown: number;
  /** Bytes of icons kept in memory. */
  maxCacheBytes: number;
  cacheTtlMs: number;
  /** Image types accepted (default: the icon types, SVG included; the route sandboxes it). */
  mimeTypes: ReadonlySet<string>;
}

const defaultIconProxyOptions: IconProxyOptions = {
  maxBytes: 256 * 1024,
  timeoutMs: 5_000,
  allowPrivate: false,
  maxKnown: 4_096,
  maxCacheBytes: 8 * 1024 * 1024,
  cacheTtlMs: 3_600_000,
  mimeTypes: ICON_MIME_TYPES,
};

const MAX_REDIRECTS = 3;

interface FetchedIcon {
  body: Buffer;
  mimeType: string;
}

export class IconFetchError extends Error {
  override name = "IconFetchError";
  constructor(
    readonly status: 404 | 502,
    message: string,
  ) {
    super(message);
  }
}

/** Never fetched: unspecified, link-local (cloud metadata lives at 169.254.169.254), multicast, reserved. */
const never = new BlockList();
/** Fetched only with allowPrivate: loopback, private networks, carrier-grade NAT, benchmarking. */
const privateNets = new BlockList();
for (const [list, net, prefix] of [
  [never, "0.0.0.0", 8],
  [never, "169.254.0.0", 16],
  [never, "224.0.0.0", 4],
  [never, "240.0.0.0", 4],
  [privateNets, "10.0.0.0", 8],
  [privateNets, "100.64.0.0", 10],
  [privateNets, "127.0.0.0", 8],
  [privateNets, "172.16.0.0", 12],
  [privateNets, "192.0.0.0", 24],
  [privateNets, "192.168.0.0", 16],
  [privateNets, "198.18.0.0", 15],
] as const) {
  list.addSubnet(net, prefix, "ipv4");
}
for (const [list, net, prefix] of [
  [never, "::", 128],
  [never, "fe80::", 10],
  [never, "ff00::", 8],
  [privateNets, "::1", 128],
  [privateNets, "fc00::", 7],
] as const) {
  list.addSubnet(net, prefix, "ipv6");
}

type AddressClass = "public" | "private" | "never";

export function addressClass(address: string): AddressClass {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return addressClass(mapped);
  const family = isIP(address);
  if (family === 0) return "never";
  const type = family === 4 ? "ipv4" : "ipv6";
  if (never.check(address, type)) return "never";
  return privateNets.check(address, type) ? "private" : "public";
}

const idOf = (src: string): string => createHash("sha256").update(src).digest("base64url").slice(0, 32);

export class IconProxy {
  readonly opts: IconProxyOptions;
  /** id -> source URL, most recently listed last. */
  private readonly known = new Map<string, string>();
  private readonly cache = new Map<string, { icon: FetchedIcon; at: number }>();
  private cacheBytes = 0;
  private readonly inflight = new Map<string, Promise<FetchedIcon>>();

  constructor(opts: Partial<IconProxyOptions> = {}) {
    this.opts = { ...defaultIconProxyOptions, ...opts };
  }

  /**
   * What the dashboard may load for a provider's icon src: http(s) URLs become a same-origin proxy
   * path, data:image URLs stay, anything else is dropped (null).
   */
  rewrite(src: string): string | null {
    const s = src.trim();
    if (/^data:image\/[a-z0-9.+-]+[;,]/i.test(s)) return s;
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return null;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (url.username || url.password) return null;
    const id = idOf(url.href);
    this.known.delete(id);
    this.known.set(id, url.href);
    if (this.known.size > this.opts.maxKnown) this.known.delete(this.known.keys().next().value as string); // size > 0
    return `${ICON_PATH}${id}`;
  }

  /** The icon behind a proxy id (fetched once, then cached). */
  async get(id: string): Promise<FetchedIcon> {
    const src = this.known.get(id);
    if (!src) throw new IconFetchError(404, "unknown icon (list the tools again)");
    return this.fetchSource(src);
  }

  /**
   * An image from a source the caller vouches for (a URL it has seen, e.g. in a stored chat message:
   * never one a client names), fetched under the same rules and cached by its URL.
   */
  async fetchSource(src: string): Promise<FetchedIcon> {
    const id = idOf(src);
    const cached = this.cache.get(id);
    if (cached && Date.now() - cached.at < this.opts.cacheTtlMs) return cached.icon;
    let pending = this.inflight.get(id);
    if (!pending) {
      pending = this.download(src).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    const icon = await pending;
    this.remember(id, icon);
    return icon;
  }

  private remember(id: string, icon: FetchedIcon): void {
    const old = this.cache.get(id);
    if (old) this.cacheBytes -= old.icon.body.length;
    this.cache.delete(id);
    this.cache.set(id, { icon, at: Date.now() });
    this.cacheBytes += icon.body.length;
    for (const [key, entry] of this.cache) {
      if (this.cacheBytes <= this.opts.maxCacheBytes) break;
      this.cache.delete(key);
      this.cacheBytes -= entry.icon.body.length;
    }
  }

  private async download(src: string): Promise<FetchedIcon> {
    let url = new URL(src);
    for (let hop = 0; ; hop++) {
      const res = await this.request(url);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (hop >= MAX_REDIRECTS) throw new IconFetchError(502, "too many redirects");
        url = new URL(res.headers.location, url);
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          throw new IconFetchError(502, `redirect to ${url.protocol} refused`);
        }
        continue;
      }
      if (status !== 200) {
        res.resume();
        throw new IconFetchError(502, `icon source answered ${status}`);
      }
      const mimeType = (res.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
      if (!this.opts.mimeTypes.has(mimeType)) {
        res.resume();
        throw new IconFetchError(502, `not an image type: ${mimeType.slice(0, 64) || "none"}`);
      }
      return { body: await this.readCapped(res), mimeType };
    }
  }

  private request(url: URL): Promise<IncomingMessage> {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // Literal addresses skip the lookup hook: check them here.
    if (isIP(host) && !this.allowed(host)) {
      return Promise.reject(new IconFetchError(502, `address ${host} is refused`));
    }
    const get = url.protocol === "https:" ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      const req = get(url, {
        method: "GET",
        agent: false,
        lookup: this.checkedLookup,
        timeout: this.opts.timeoutMs,
        headers: { accept: [...this.opts.mimeTypes].join(", "), "user-agent": "maisaka-image-proxy" },
      });
      const timer = setTimeout(
        () => req.destroy(new IconFetchError(502, "icon source timed out")),
        this.opts.timeoutMs,
      );
      req.on("response", (res) => {
        res.on("close", () => clearTimeout(timer));
        resolve(res);
      });
      req.on("timeout", () => req.destroy(new IconFetchError(502, "icon source timed out")));
      req.on("error", (error) => {
        clearTimeout(timer);
        reject(
          error instanceof IconFetchError ? error : new IconFetchError(502, `icon fetch failed: ${error.message}`),
        );
      });
      req.end();
    });
  }

  private readCapped(res: IncomingMessage): Promise<Buffer> {
    const declared = Number(res.headers["content-length"]);
    if (declared > this.opts.maxBytes) {
      res.destroy();
      return Promise.reject(new IconFetchError(502, `icon larger than ${this.opts.maxBytes} bytes`));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.opts.maxBytes) {
          res.destroy();
          reject(new IconFetchError(502, `icon larger than ${this.opts.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => resolve(Buffer.concat(chunks)));
      res.on("error", (error) => reject(new IconFetchError(502, `icon fetch failed: ${error.message}`)));
    });
  }

  private allowed(address: string): boolean {
    const kind = addressClass(address);
    return kind === "public" || (kind === "private" && this.opts.allowPrivate);
  }

  /** dns.lookup, refusing names that resolve to a refused address (checked at connect time: no rebinding window). */
  private readonly checkedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((a) => !this.allowed(a.address));
      if (refused || !addresses.length) {
        const err = new IconFetchError(
          502,
          `${hostname} resolves to ${refused?.address ?? "nothing"}, which is refused`,
        );
        return callback(err, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses); // all:true form
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

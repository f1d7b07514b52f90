// Who a request comes from, and whether it reached us over TLS, when a reverse proxy may stand in
// front (docs/deploy.md). `server.trustProxy` lists the proxies' addresses (or networks in CIDR
// notation); only a request whose TCP peer is one of them has its X-Forwarded-For and
// X-Forwarded-Proto believed. Anyone else could write those headers themselves: a guesser would pick
// a fresh address for every try, and a plain-HTTP client would be handed a Secure cookie it drops.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import { clientAddress } from "./login-limiter";

/** What the checks read of a request or a socket handshake. */
export interface Peer {
  headers: IncomingHttpHeaders;
  /** The TCP peer. */
  remoteAddress: string | undefined;
  /** The TCP connection itself is TLS. */
  encrypted: boolean;
}

export function peerOf(req: IncomingMessage): Peer {
  return {
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
    encrypted: Boolean((req.socket as TLSSocket).encrypted), // a TLSSocket only when served over https
  };
}

const familyOf = (address: string): "ipv4" | "ipv6" => (isIP(address) === 6 ? "ipv6" : "ipv4");

export class ProxyTrust {
  private readonly proxies: BlockList | null;
  private warned = false;

  /**
   * `trusted`: false, or the proxies' addresses and networks (validated by the config schema).
   * `onIgnored` hears once of a forwarded request from a peer that is not listed (a proxy someone forgot
   * to list makes every client one address).
   */
  constructor(
    trusted: false | readonly string[],
    private readonly onIgnored?: (peer: string) => void,
  ) {
    if (trusted === false || trusted.length === 0) {
      this.proxies = null;
      return;
    }
    this.proxies = new BlockList();
    for (const entry of trusted) {
      const [address, prefix] = entry.split("/");
      if (prefix !== undefined) this.proxies.addSubnet(address, Number(prefix), familyOf(address));
      else {
        // Peers are compared spelled as IPv4 when they are IPv4-mapped: so are the proxies.
        const plain = clientAddress(address);
        this.proxies.addAddress(plain, familyOf(plain));
      }
    }
  }

  /** The client's address: the peer, or (from a listed proxy) the first hop right to left that is no proxy. */
  addressOf(peer: Peer): string {
    const direct = clientAddress(peer.remoteAddress);
    const forwarded = headerValues(peer.headers["x-forwarded-for"]);
    if (!this.believes(direct, forwarded.length > 0)) return direct;
    // Each proxy appends the address it was reached from: read from the right, past the listed proxies.
    let address = direct;
    for (let i = forwarded.length - 1; i >= 0; i--) {
      const hop = clientAddress(forwarded[i]);
      // Not an address: whatever wrote it, the last proxy we trust met the client.
      if (isIP(hop) === 0) return address;
      address = hop;
      if (!this.isProxy(hop)) return hop;
    }
    return address;
  }

  /** The client reached us over TLS: the connection itself, or (from a listed proxy) X-Forwarded-Proto. */
  isSecure(peer: Peer): boolean {
    if (peer.encrypted) return true;
    const proto = headerValues(peer.headers["x-forwarded-proto"]);
    if (!this.believes(clientAddress(peer.remoteAddress), proto.length > 0)) return false;
    // The first value is the one the outermost proxy saw.
    return proto[0]?.toLowerCase() === "https";
  }

  private believes(direct: string, forwarded: boolean): boolean {
    if (!forwarded) return false;
    if (this.isProxy(direct)) return true;
    if (!this.warned) {
      this.warned = true;
      this.onIgnored?.(direct);
    }
    return false;
  }

  private isProxy(address: string): boolean {
    return this.proxies !== null && isIP(address) !== 0 && this.proxies.check(address, familyOf(address));
  }
}

/** A header's comma-separated values (repeated headers arrive joined by node), trimmed, none empty. */
function headerValues(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(",") : (header ?? "");
  return joined
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
}

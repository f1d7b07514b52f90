// An implementation-side OneBot v11 simulator for tests, written from the protocol documents
// (github.com/botuniverse/onebot-11: communication/ws*.md, event/, message/, api/public.md). It plays
// what NapCat or go-cqhttp plays toward our server: a reverse WebSocket client (one Universal socket,
// or an API and an Event socket), or a forward WebSocket server our server connects to; it pushes
// message, notice, request and meta events (messages as segment arrays or CQ-code strings), answers
// actions with the caller's echo, and can be told to fail, stay silent, answer late or drop the
// connection.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer, type RawData } from "ws";
import { z } from "zod";
import { until } from "./until";

// ---------------------------------------------------------------------------------------------
// Messages: segments and the CQ-code string format (message/array.md, message/string.md)

export interface Segment {
  type: string;
  data: Record<string, unknown>;
}

/** Text outside CQ codes: & [ ] escaped (message/string.md, 转义). */
export function escapeCqText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/\[/g, "&#91;").replace(/\]/g, "&#93;");
}

/** A CQ-code parameter value: the text escapes plus the comma. */
export function escapeCqParam(value: string): string {
  return escapeCqText(value).replace(/,/g, "&#44;");
}

/** The string format of a segment array: text segments as escaped text, the rest as [CQ:type,k=v,…]. */
export function toCqString(segments: readonly Segment[]): string {
  return segments
    .map((s) => {
      if (s.type === "text") return escapeCqText(typeof s.data.text === "string" ? s.data.text : "");
      const params = Object.entries(s.data)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => `,${k}=${escapeCqParam(typeof v === "string" ? v : JSON.stringify(v))}`);
      return `[CQ:${s.type}${params.join("")}]`;
    })
    .join("");
}

/** Every segment kind an implementation sends in events (message/segment.md), with realistic data. */
export const seg = {
  text: (text: string): Segment => ({ type: "text", data: { text } }),
  /** qq: a QQ id, or "all". */
  at: (qq: string): Segment => ({ type: "at", data: { qq } }),
  reply: (id: string | number): Segment => ({ type: "reply", data: { id: String(id) } }),
  image: (file: string, url?: string): Segment => ({ type: "image", data: { file, ...(url ? { url } : {}) } }),
  face: (id: string | number): Segment => ({ type: "face", data: { id: String(id) } }),
  /** NapCat's market face (not in the v11 documents, common in the wild). */
  mface: (summary: string, url?: string): Segment => ({
    type: "mface",
    data: { summary, emoji_id: "e1", emoji_package_id: "p1", ...(url ? { url } : {}) },
  }),
  dice: (): Segment => ({ type: "dice", data: {} }),
  rps: (): Segment => ({ type: "rps", data: {} }),
  poke: (type = "126", id = "2003", name = "戳一戳"): Segment => ({ type: "poke", data: { type, id, name } }),
  share: (url: string, title: string, content?: string): Segment => ({
    type: "share",
    data: { url, title, ...(content ? { content } : {}) },
  }),
  json: (data: unknown): Segment => ({
    type: "json",
    data: { data: typeof data === "string" ? data : JSON.stringify(data) },
  }),
  xml: (data: string): Segment => ({ type: "xml", data: { data } }),
  record: (file: string, url?: string): Segment => ({ type: "record", data: { file, ...(url ? { url } : {}) } }),
  video: (file: string, url?: string): Segment => ({ type: "video", data: { file, ...(url ? { url } : {}) } }),
  /** File segment (go-cqhttp/NapCat extension): name and size. */
  file: (name: string, size = 1024): Segment => ({ type: "file", data: { file: name, name, size: String(size) } }),
  forward: (id: string): Segment => ({ type: "forward", data: { id } }),
  /** A forward node (what get_forward_msg answers). */
  node: (userId: string, nickname: string, content: Segment[] | string): Segment => ({
    type: "node",
    data: { user_id: userId, nickname, content },
  }),
};

/** The plain text of segments, as raw_message would carry it in the string format. */
export function rawMessageOf(message: Segment[] | string): string {
  return typeof message === "string" ? message : toCqString(message);
}

// ---------------------------------------------------------------------------------------------
// Actions (api/public.md) and what the simulator does with them

const actionFrameSchema = z.object({
  action: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  echo: z.unknown().optional(),
});

export interface ReceivedAction {
  action: string;
  params: Record<string, unknown>;
  echo: unknown;
  /** Arrival at the simulator: performance.timeOrigin + performance.now() (ms, wall clock). */
  at: number;
  /** The socket's role (Universal, API; forward: the path's role). */
  role: ClientRole;
  /** How it was answered (or not). */
  outcome: "ok" | "failed" | "silent" | "dropped";
}

export type ActionBehaviour =
  /** Answer status ok with the data computed from the action's params. */
  | { kind: "ok"; data: (params: Record<string, unknown>) => unknown }
  /** Answer status failed with this retcode (default 100, go-cqhttp's generic failure). */
  | { kind: "fail"; retcode?: number; message?: string }
  /** Never answer. */
  | { kind: "silent" }
  /** Answer normally after this long. */
  | { kind: "delay"; ms: number }
  /** Drop the connection (TCP reset) instead of answering: a crash mid-send. */
  | { kind: "drop" };

interface Override {
  action: string;
  behaviour: ActionBehaviour;
  /** How many more actions it applies to (Infinity: until cleared). */
  remaining: number;
}

export type ClientRole = "Universal" | "API" | "Event";

export interface StoredMessage {
  messageId: number;
  messageType: "group" | "private";
  groupId?: string;
  userId: string;
  nickname: string;
  card?: string;
  message: Segment[] | string;
  time: number;
}

export interface OneBotSimulatorOptions {
  /** The bot account (X-Self-ID, self_id of every event). */
  selfId: string;
  nickname?: string;
  appName?: string;
  appVersion?: string;
  /** Heartbeat meta events on every event socket this often; 0: none. Default 30 s (NapCat's default). */
  heartbeatIntervalMs?: number;
  /** The format of `message` in events unless a call says otherwise. Default "array". */
  messageFormat?: "array" | "string";
  /** Group names for get_group_info (default "群<id>"). */
  groups?: Record<string, string>;
  /** Nicknames for get_stranger_info (default "用户<id>"). */
  users?: Record<string, string>;
  /** get_forward_msg contents by forward id. */
  forwards?: Record<string, Segment[]>;
}

export interface ReverseOptions {
  /** ws://host:port of our server (no path). */
  baseUrl: string;
  /** "universal": one socket to /onebot/v11/ws; "split": /onebot/v11/ws/api and /onebot/v11/ws/event. */
  roles?: "universal" | "split";
  /** Override the paths (e.g. to connect both roles to one URL). */
  paths?: { universal?: string; api?: string; event?: string };
  token?: string;
  /** Where the token goes: "bearer" (Authorization: Bearer), "token" (Authorization: Token), "query". */
  tokenIn?: "bearer" | "token" | "query";
  /**
   * Also send `Authorization: Bearer ` with nothing after it, as NapCat (websocket-client.ts), LLOneBot
   * and Lagrange.OneBot (ReverseWSService.cs) do when their own token field is empty.
   */
  emptyBearer?: boolean;
  /** X-Client-Role as this implementation spells it, per role (Lagrange.OneBot's split mode: API → "Api"). */
  roleHeaders?: Partial<Record<ClientRole, string>>;
  /** Extra or replaced headers (e.g. a wrong X-Self-ID). */
  headers?: Record<string, string>;
  /** After a drop that was not our own close, connect again this long after (ws_reverse.reconnect_interval). */
  reconnectIntervalMs?: number;
}

export interface ForwardOptions {
  /** The token our server must present (Authorization: Bearer or ?access_token=); none: no check. */
  token?: string;
  port?: number;
  /**
   * How a wrong or missing token is refused: "http", go-cqhttp's 401 / 403 before the upgrade (default);
   * "napcat", NapCat's WebSocket server (src/onebot/network/websocket-server.ts, authorize): the upgrade
   * is taken, then one frame `{status: "failed", retcode: 1403, message: "token验证失败", echo: null}`
   * and a close.
   */
  refusal?: "http" | "napcat";
}

/** A refused upgrade: the HTTP status the server answered instead of 101. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
  ) {
    super(`upgrade to ${path} refused with HTTP ${status}`);
    this.name = "UpgradeRefused";
  }
}

interface Peer {
  ws: WebSocket;
  role: ClientRole;
}

const DEFAULT_PATHS = { universal: "/onebot/v11/ws", api: "/onebot/v11/ws/api", event: "/onebot/v11/ws/event" };

const now = () => performance.timeOrigin + performance.now();
const unixSeconds = () => Math.floor(Date.now() / 1000);
/** QQ ids travel as numbers (event/*.md: number (int64)). */
const wireId = (id: string | number) => (typeof id === "number" ? id : /^\d+$/.test(id) ? Number(id) : id);

export class OneBotSimulator {
  readonly selfId: string;
  /** Every action frame received, in order. */
  readonly actions: ReceivedAction[] = [];
  /** Frames received that were not action frames (kept for assertions). */
  readonly badFrames: string[] = [];
  /** Every event frame sent, with its send time. */
  readonly sentEvents: { frame: Record<string, unknown>; at: number }[] = [];
  /** Upgrades accepted so far (reverse: connections made; forward: connections taken). */
  connections = 0;
  /** Forward mode: the Authorization header / query token of each connection attempt. */
  readonly forwardAttempts: {
    path: string;
    authorization?: string;
    token: string | null;
    status: number;
    /** Upgraded, then refused with a OneBot frame (refusal "napcat"). */
    refused?: boolean;
  }[] = [];

  private readonly opts: Required<Omit<OneBotSimulatorOptions, "groups" | "users" | "forwards">> &
    Pick<OneBotSimulatorOptions, "groups" | "users" | "forwards">;
  private readonly peers: Peer[] = [];
  private readonly overrides: Override[] = [];
  private readonly messages = new Map<number, StoredMessage>();
  /** Flags of requests sent and not answered yet (set_friend_add_request / set_group_add_request). */
  private readonly openRequests = new Set<string>();
  private readonly heartbeats = new Map<WebSocket, NodeJS.Timeout>();
  private nextMessageId = 1000;
  private reverse: ReverseOptions | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private forwardServer: { http: Server; wss: WebSocketServer } | null = null;
  private closed = false;

  constructor(options: OneBotSimulatorOptions) {
    this.selfId = options.selfId;
    this.opts = {
      nickname: "模拟机器人",
      appName: "onebot-sim",
      appVersion: "1.0.0",
      heartbeatIntervalMs: 30_000,
      messageFormat: "array",
      ...options,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Connections

  /** Reverse WebSocket: connect to our server as the implementation does (ws-reverse.md). */
  async connectReverse(options: ReverseOptions): Promise<void> {
    this.reverse = options;
    this.closed = false;
    const paths = { ...DEFAULT_PATHS, ...options.paths };
    const targets: [ClientRole, string][] =
      options.roles === "split"
        ? [
            ["API", paths.api],
            ["Event", paths.event],
          ]
        : [["Universal", paths.universal]];
    await Promise.all(targets.map(([role, path]) => this.dial(options, role, path)));
  }

  /** One reverse connection attempt, resolving once open; rejects with UpgradeRefused on a non-101. */
  private dial(options: ReverseOptions, role: ClientRole, path: string): Promise<void> {
    const url = new URL(path, options.baseUrl);
    const headers: Record<string, string> = {
      "X-Self-ID": this.selfId,
      "X-Client-Role": options.roleHeaders?.[role] ?? role,
    };
    if (options.emptyBearer) headers.Authorization = "Bearer ";
    if (options.token !== undefined) {
      if (options.tokenIn === "query") url.searchParams.set("access_token", options.token);
      else headers.Authorization = `${options.tokenIn === "token" ? "Token" : "Bearer"} ${options.token}`;
    }
    Object.assign(headers, options.headers);
    // A server that neither upgrades nor refuses must not hang the test: give up as an implementation would.
    const ws = new WebSocket(url, { headers, maxPayload: 64 * 1024 * 1024, handshakeTimeout: 5_000 });
    return new Promise<void>((resolve, reject) => {
      ws.once("unexpected-response", (_req, res) => {
        reject(new UpgradeRefused(res.statusCode ?? 0, path));
        res.resume();
        ws.terminate();
      });
      ws.once("error", (error) => reject(error));
      ws.once("open", () => {
        this.adopt(ws, role);
        ws.on("close", () => this.scheduleReconnect());
        resolve();
      });
    });
  }

  private scheduleReconnect(): void {
    const options = this.reverse;
    if (this.closed || !options || options.reconnectIntervalMs === undefined || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed) return;
      // Reconnect only the roles that are gone (a split client may have lost one of its two sockets).
      this.connectMissing(options).catch(() => this.scheduleReconnect());
    }, options.reconnectIntervalMs);
  }

  private async connectMissing(options: ReverseOptions): Promise<void> {
    const paths = { ...DEFAULT_PATHS, ...options.paths };
    const open = new Set(this.peers.map((p) => p.role));
    const wanted: [ClientRole, string][] =
      options.roles === "split"
        ? [
            ["API", paths.api],
            ["Event", paths.event],
          ]
        : [["Universal", paths.universal]];
    await Promise.all(wanted.filter(([role]) => !open.has(role)).map(([role, path]) => this.dial(options, role, path)));
  }

  /** Forward WebSocket: listen on a loopback port for our server (ws.md: paths /, /api, /event). */
  async listenForward(options: ForwardOptions = {}): Promise<{ url: string; port: number }> {
    this.closed = false;
    const http = createServer((_req, res) => res.writeHead(426).end("WebSocket only"));
    const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
    http.on("upgrade", (req: IncomingMessage, socket, head) => {
      // The upgrade's socket has no listener of its own: a client resetting it would throw in the test process.
      socket.on("error", () => socket.destroy());
      const url = new URL(req.url ?? "/", "http://localhost");
      const role = forwardRole(url.pathname);
      const authorization = req.headers.authorization;
      const given = /^(?:Bearer|Token)\s+(.+)$/i.exec(authorization ?? "")?.[1] ?? url.searchParams.get("access_token");
      // go-cqhttp: 401 without a token, 403 with a wrong one; both before the upgrade.
      const status = !role ? 404 : options.token && !given ? 401 : options.token && given !== options.token ? 403 : 101;
      if (role && status !== 101 && options.refusal === "napcat") {
        this.forwardAttempts.push({
          path: url.pathname,
          authorization,
          token: given ?? null,
          status: 101,
          refused: true,
        });
        wss.handleUpgrade(req, socket, head, (ws) => {
          const refusal = {
            status: "failed",
            retcode: 1403,
            data: null,
            message: "token验证失败",
            wording: "token验证失败",
            echo: null,
          };
          ws.send(JSON.stringify(refusal));
          ws.close();
        });
        return;
      }
      this.forwardAttempts.push({ path: url.pathname, authorization, token: given ?? null, status });
      if (status !== 101 || !role) {
        const reason = status === 404 ? "Not Found" : status === 401 ? "Unauthorized" : "Forbidden";
        socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.adopt(ws, role));
    });
    await new Promise<void>((resolve) => http.listen(options.port ?? 0, "127.0.0.1", resolve));
    this.forwardServer = { http, wss };
    const { port } = http.address() as AddressInfo; // a TCP listener's address is an AddressInfo
    return { url: `ws://127.0.0.1:${port}`, port };
  }

  private adopt(ws: WebSocket, role: ClientRole): void {
    this.connections++;
    const peer: Peer = { ws, role };
    this.peers.push(peer);
    ws.on("message", (data: RawData, isBinary: boolean) => this.onFrame(peer, data, isBinary));
    ws.on("error", () => undefined); // a reset shows as close right after; nothing to do here
    ws.on("close", () => {
      const i = this.peers.indexOf(peer);
      if (i >= 0) this.peers.splice(i, 1);
      const timer = this.heartbeats.get(ws);
      if (timer) clearInterval(timer);
      this.heartbeats.delete(ws);
    });
    if (role === "API") return;
    // Event-capable sockets: lifecycle connect first, then heartbeats (event/meta.md).
    // A socket that closes meanwhile just misses the frame (the "close" handler cleans up).
    const quietly = (frame: Record<string, unknown>) => void this.sendOn(ws, frame).catch(() => undefined);
    quietly(this.metaFrame({ meta_event_type: "lifecycle", sub_type: "connect" }));
    const interval = this.opts.heartbeatIntervalMs;
    if (interval > 0)
      this.heartbeats.set(
        ws,
        setInterval(() => quietly(this.heartbeatFrame()), interval),
      );
  }

  /** Open sockets by role. */
  get openSockets(): { role: ClientRole; readyState: number }[] {
    return this.peers.map((p) => ({ role: p.role, readyState: p.ws.readyState }));
  }

  /** Resolves once this many sockets are open (after a reconnect, say). */
  waitForOpen(count = 1, timeoutMs = 10_000): Promise<boolean> {
    return until(
      () => this.peers.filter((p) => p.ws.readyState === WebSocket.OPEN).length >= count,
      () => `${count} open OneBot sockets (have ${this.peers.length})`,
      { timeoutMs },
    );
  }

  /** Drops every connection abruptly (TCP reset), as a crashed implementation would. */
  dropConnections(): void {
    for (const p of [...this.peers]) p.ws.terminate();
  }

  /** Reverse: closes the sockets and connects again with the same options. */
  async reconnect(): Promise<void> {
    if (!this.reverse) throw new Error("reconnect: not in reverse mode");
    const options = this.reverse;
    await this.closeSockets();
    this.closed = false;
    await this.connectReverse(options);
  }

  private async closeSockets(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    await Promise.all(
      [...this.peers].map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.ws.readyState === WebSocket.CLOSED) return resolve();
            p.ws.once("close", () => resolve());
            p.ws.close(1000, "simulator closing");
            // A peer that never answers the close handshake is cut off.
            setTimeout(() => p.ws.terminate(), 1_000).unref();
          }),
      ),
    );
  }

  /** Closes every socket and the forward server; no reconnects after. */
  async close(): Promise<void> {
    await this.closeSockets();
    const server = this.forwardServer;
    this.forwardServer = null;
    if (server) {
      for (const client of server.wss.clients) client.terminate();
      server.http.closeAllConnections();
      await new Promise<void>((resolve) => server.http.close(() => resolve()));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Events (event/*.md)

  private base(): { time: number; self_id: number | string } {
    return { time: unixSeconds(), self_id: wireId(this.selfId) };
  }

  private metaFrame(fields: Record<string, unknown>): Record<string, unknown> {
    return { ...this.base(), post_type: "meta_event", ...fields };
  }

  private heartbeatFrame(): Record<string, unknown> {
    return this.metaFrame({
      meta_event_type: "heartbeat",
      status: { online: true, good: true },
      interval: this.opts.heartbeatIntervalMs,
    });
  }

  /** Sends a heartbeat now on every event socket. */
  heartbeat(): Promise<void> {
    return this.sendEvent(this.heartbeatFrame());
  }

  private eventSockets(): WebSocket[] {
    return this.peers.filter((p) => p.role !== "API" && p.ws.readyState === WebSocket.OPEN).map((p) => p.ws);
  }

  private sendOn(ws: WebSocket, frame: Record<string, unknown> | string | Buffer): Promise<void> {
    const data = typeof frame === "string" || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
    return new Promise<void>((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new Error("OneBot simulator: socket not open"));
      ws.send(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Any event frame, as is, on every event socket (rejects when there is none). */
  async sendEvent(frame: Record<string, unknown>): Promise<void> {
    const sockets = this.eventSockets();
    if (!sockets.length) throw new Error("OneBot simulator: no open event socket");
    this.sentEvents.push({ frame, at: now() });
    await Promise.all(sockets.map((ws) => this.sendOn(ws, frame)));
  }

  /** Anything at all on every event socket: not JSON, a JSON array, binary, a giant frame. */
  async sendRaw(data: string | Buffer): Promise<void> {
    const sockets = this.eventSockets();
    if (!sockets.length) throw new Error("OneBot simulator: no open event socket");
    await Promise.all(sockets.map((ws) => this.sendOn(ws, data)));
  }

  /** A message id for an event (the implementation assigns them; int32 on the wire). */
  allocateMessageId(): number {
    return this.nextMessageId++;
  }

  private messageFrame(m: StoredMessage, format: "array" | "string"): Record<string, unknown> {
    const message = format === "string" && typeof m.message !== "string" ? toCqString(m.message) : m.message;
    const sender: Record<string, unknown> = { user_id: wireId(m.userId), nickname: m.nickname, sex: "unknown", age: 0 };
    if (m.messageType === "group") Object.assign(sender, { card: m.card ?? "", role: "member" });
    return {
      ...this.base(),
      post_type: "message",
      message_type: m.messageType,
      sub_type: m.messageType === "group" ? "normal" : "friend",
      message_id: m.messageId,
      ...(m.groupId ? { group_id: wireId(m.groupId), anonymous: null } : {}),
      user_id: wireId(m.userId),
      message,
      raw_message: rawMessageOf(m.message),
      font: 0,
      sender,
    };
  }

  /**
   * A message from before the bot connected: known to the implementation (get_msg answers it), never
   * pushed as an event. Returns its message id.
   */
  rememberMessage(m: Omit<StoredMessage, "messageId" | "time"> & { time?: number }): number {
    const messageId = this.allocateMessageId();
    this.messages.set(messageId, { ...m, messageId, time: m.time ?? unixSeconds() - 3600 });
    return messageId;
  }

  /** A group message event; resolves with the frame sent (its message_id included). */
  async groupMessage(m: {
    groupId: string;
    userId: string;
    message: Segment[] | string;
    nickname?: string;
    card?: string;
    messageId?: number;
    format?: "array" | "string";
  }): Promise<Record<string, unknown>> {
    const stored: StoredMessage = {
      messageId: m.messageId ?? this.allocateMessageId(),
      messageType: "group",
      groupId: m.groupId,
      userId: m.userId,
      nickname: m.nickname ?? this.nicknameOf(m.userId),
      card: m.card,
      message: m.message,
      time: unixSeconds(),
    };
    this.messages.set(stored.messageId, stored);
    const frame = this.messageFrame(stored, m.format ?? this.opts.messageFormat);
    await this.sendEvent(frame);
    return frame;
  }

  /** A private (friend) message event. */
  async privateMessage(m: {
    userId: string;
    message: Segment[] | string;
    nickname?: string;
    messageId?: number;
    format?: "array" | "string";
  }): Promise<Record<string, unknown>> {
    const stored: StoredMessage = {
      messageId: m.messageId ?? this.allocateMessageId(),
      messageType: "private",
      userId: m.userId,
      nickname: m.nickname ?? this.nicknameOf(m.userId),
      message: m.message,
      time: unixSeconds(),
    };
    this.messages.set(stored.messageId, stored);
    const frame = this.messageFrame(stored, m.format ?? this.opts.messageFormat);
    await this.sendEvent(frame);
    return frame;
  }

  private notice(fields: Record<string, unknown>): Promise<void> {
    return this.sendEvent({ ...this.base(), post_type: "notice", ...fields });
  }

  groupRecall(n: { groupId: string; userId: string; messageId: number; operatorId?: string }): Promise<void> {
    return this.notice({
      notice_type: "group_recall",
      group_id: wireId(n.groupId),
      user_id: wireId(n.userId),
      operator_id: wireId(n.operatorId ?? n.userId),
      message_id: n.messageId,
    });
  }

  friendRecall(n: { userId: string; messageId: number }): Promise<void> {
    return this.notice({ notice_type: "friend_recall", user_id: wireId(n.userId), message_id: n.messageId });
  }

  /** A poke in a group (notice notify/poke); targetId defaults to the bot. */
  poke(n: { groupId: string; userId: string; targetId?: string }): Promise<void> {
    return this.notice({
      notice_type: "notify",
      sub_type: "poke",
      group_id: wireId(n.groupId),
      user_id: wireId(n.userId),
      target_id: wireId(n.targetId ?? this.selfId),
    });
  }

  groupIncrease(n: { groupId: string; userId: string; operatorId?: string; subType?: "approve" | "invite" }) {
    return this.notice({
      notice_type: "group_increase",
      sub_type: n.subType ?? "approve",
      group_id: wireId(n.groupId),
      operator_id: wireId(n.operatorId ?? n.userId),
      user_id: wireId(n.userId),
    });
  }

  groupDecrease(n: { groupId: string; userId: string; operatorId?: string; subType?: "leave" | "kick" | "kick_me" }) {
    return this.notice({
      notice_type: "group_decrease",
      sub_type: n.subType ?? "leave",
      group_id: wireId(n.groupId),
      operator_id: wireId(n.operatorId ?? n.userId),
      user_id: wireId(n.userId),
    });
  }

  private request(fields: Record<string, unknown>): Promise<void> {
    return this.sendEvent({ ...this.base(), post_type: "request", ...fields });
  }

  /** A friend request (event/request.md, 加好友请求); returns its flag, which set_friend_add_request answers. */
  async friendRequest(n: { userId: string; comment?: string }): Promise<string> {
    const flag = `friend-${this.allocateMessageId()}`;
    this.openRequests.add(flag);
    await this.request({ request_type: "friend", user_id: wireId(n.userId), comment: n.comment ?? "", flag });
    return flag;
  }

  /** A request to join a group ("add") or an invitation of the bot into one ("invite"); returns its flag. */
  async groupRequest(n: {
    groupId: string;
    userId: string;
    subType: "add" | "invite";
    comment?: string;
  }): Promise<string> {
    const flag = `group-${this.allocateMessageId()}`;
    this.openRequests.add(flag);
    await this.request({
      request_type: "group",
      sub_type: n.subType,
      group_id: wireId(n.groupId),
      user_id: wireId(n.userId),
      comment: n.comment ?? "",
      flag,
    });
    return flag;
  }

  /** The malformed frames of the issue's "Bad input", one of each kind. */
  async sendMalformed(kind: "not-json" | "json-array" | "unknown-post-type" | "unknown-segment" | "giant" | "binary") {
    switch (kind) {
      case "not-json":
        return this.sendRaw("{this is not json");
      case "json-array":
        return this.sendRaw(JSON.stringify([{ post_type: "message" }, 1, "two"]));
      case "binary":
        return this.sendRaw(Buffer.from([0xff, 0x00, 0xfe, 0x01]));
      case "unknown-post-type":
        return this.sendEvent({ ...this.base(), post_type: "something_new", detail: { x: 1 } });
      case "unknown-segment":
        return void (await this.groupMessage({
          groupId: "900001",
          userId: "800001",
          message: [{ type: "hologram", data: { depth: "3" } }, seg.text("还有文字")],
        }));
      case "giant":
        // 2 MiB of text in one message: more than any chat allows, still one well-formed frame.
        return void (await this.groupMessage({
          groupId: "900001",
          userId: "800001",
          message: [seg.text("大".repeat(2 * 1024 * 1024))],
        }));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Actions

  /** Changes how `action` is answered, for the next `times` calls (default: until cleared). */
  override(action: string, behaviour: ActionBehaviour, times = Infinity): void {
    this.overrides.push({ action, behaviour, remaining: times });
  }

  clearOverrides(action?: string): void {
    for (let i = this.overrides.length - 1; i >= 0; i--)
      if (action === undefined || this.overrides[i].action === action) this.overrides.splice(i, 1);
  }

  /** Actions received so far with this name. */
  actionsNamed(action: string): ReceivedAction[] {
    return this.actions.filter((a) => a.action === action);
  }

  /** Resolves with the first received action that matches (already received ones count). */
  waitFor(
    predicate: (a: ReceivedAction) => boolean,
    opts: { timeoutMs?: number; what?: string } = {},
  ): Promise<ReceivedAction> {
    return until(
      () => this.actions.find(predicate),
      () => `${opts.what ?? "a matching OneBot action"} (received: ${summarise(this.actions)})`,
      { timeoutMs: opts.timeoutMs },
    );
  }

  /** Resolves once `count` received actions match. */
  waitForCount(
    predicate: (a: ReceivedAction) => boolean,
    count: number,
    opts: { timeoutMs?: number; what?: string } = {},
  ): Promise<ReceivedAction[]> {
    return until(
      () => {
        const hits = this.actions.filter(predicate);
        return hits.length >= count ? hits : null;
      },
      () => `${count} × ${opts.what ?? "matching OneBot actions"} (have ${this.actions.filter(predicate).length})`,
      { timeoutMs: opts.timeoutMs },
    );
  }

  /** A stored message (one the simulator pushed, or one the bot sent). */
  message(messageId: number): StoredMessage | undefined {
    return this.messages.get(messageId);
  }

  private nicknameOf(userId: string): string {
    return this.opts.users?.[userId] ?? `用户${userId}`;
  }

  private onFrame(peer: Peer, data: RawData, isBinary: boolean): void {
    const text = isBinary ? "" : textOf(data);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.badFrames.push(text);
      return;
    }
    const frame = actionFrameSchema.safeParse(parsed);
    if (!frame.success) {
      this.badFrames.push(text);
      return;
    }
    const { action, params = {}, echo } = frame.data;
    const received: ReceivedAction = { action, params, echo, at: now(), role: peer.role, outcome: "ok" };
    this.actions.push(received);
    if (peer.role === "Event") {
      // An Event socket takes no actions (ws-reverse.md); real implementations ignore them.
      received.outcome = "silent";
      return;
    }
    const behaviour = this.takeOverride(action);
    const answer = (delayMs: number) => {
      const response = this.respond(action, params, behaviour);
      received.outcome = response.status === "ok" ? "ok" : "failed";
      const send = () => void this.sendOn(peer.ws, { ...response, echo }).catch(() => undefined);
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    };
    switch (behaviour?.kind) {
      case "silent":
        received.outcome = "silent";
        return;
      case "drop":
        received.outcome = "dropped";
        peer.ws.terminate();
        return;
      case "delay":
        return answer(behaviour.ms);
      default:
        return answer(0);
    }
  }

  private takeOverride(action: string): ActionBehaviour | undefined {
    const i = this.overrides.findIndex((o) => o.action === action && o.remaining > 0);
    if (i < 0) return undefined;
    const o = this.overrides[i];
    o.remaining--;
    if (o.remaining <= 0) this.overrides.splice(i, 1);
    return o.behaviour;
  }

  private respond(
    action: string,
    params: Record<string, unknown>,
    behaviour: ActionBehaviour | undefined,
  ): { status: string; retcode: number; data: unknown; message: string; wording: string } {
    const ok = (data: unknown) => ({ status: "ok", retcode: 0, data, message: "", wording: "" });
    const failed = (retcode: number, message: string) => ({
      status: "failed",
      retcode,
      data: null,
      message,
      wording: message,
    });
    if (behaviour?.kind === "fail") return failed(behaviour.retcode ?? 100, behaviour.message ?? "simulated failure");
    if (behaviour?.kind === "ok") return ok(behaviour.data(params));
    switch (action) {
      case "send_group_msg":
      case "send_private_msg":
      case "send_msg": {
        const group = action === "send_group_msg" || (action === "send_msg" && params.group_id !== undefined);
        const message = params.message;
        if (!isMessage(message)) return failed(1400, "message is missing or not a message");
        const messageId = this.allocateMessageId();
        this.messages.set(messageId, {
          messageId,
          messageType: group ? "group" : "private",
          groupId: group ? String(params.group_id) : undefined,
          userId: this.selfId,
          nickname: this.opts.nickname,
          message: Array.isArray(message) ? message : typeof message === "string" ? message : [message],
          time: unixSeconds(),
        });
        return ok({ message_id: messageId });
      }
      case "delete_msg":
        return ok(null);
      case "get_msg": {
        const m = this.messages.get(Number(params.message_id));
        if (!m) return failed(100, `message ${String(params.message_id)} not found`);
        return ok({
          time: m.time,
          message_type: m.messageType,
          message_id: m.messageId,
          real_id: m.messageId,
          ...(m.groupId ? { group_id: wireId(m.groupId) } : {}),
          sender: { user_id: wireId(m.userId), nickname: m.nickname, ...(m.card ? { card: m.card } : {}) },
          message: m.message,
        });
      }
      case "get_forward_msg": {
        const nodes = this.opts.forwards?.[String(params.id)];
        if (!nodes) return failed(100, `forward ${String(params.id)} not found`);
        return ok({ message: nodes });
      }
      case "get_group_info": {
        const id = String(params.group_id);
        return ok({
          group_id: wireId(id),
          group_name: this.opts.groups?.[id] ?? `群${id}`,
          member_count: 42,
          max_member_count: 500,
        });
      }
      case "get_stranger_info": {
        const id = String(params.user_id);
        return ok({ user_id: wireId(id), nickname: this.nicknameOf(id), sex: "unknown", age: 0 });
      }
      case "set_friend_add_request":
      case "set_group_add_request": {
        // api/public.md: the flag from the request event; answered once.
        const flag = String(params.flag);
        if (!this.openRequests.delete(flag)) return failed(100, `no open request with flag ${flag}`);
        return ok(null);
      }
      case "get_login_info":
        return ok({ user_id: wireId(this.selfId), nickname: this.opts.nickname });
      case "get_version_info":
        return ok({ app_name: this.opts.appName, app_version: this.opts.appVersion, protocol_version: "v11" });
      case "get_status":
        return ok({ online: true, good: true });
      default:
        return failed(1404, `unknown action ${action}`);
    }
  }
}

/** A text frame's content (ws hands over a Buffer, an ArrayBuffer or fragments). */
export function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(new Uint8Array(data)).toString("utf8");
}

function forwardRole(pathname: string): ClientRole | null {
  const p = pathname.replace(/\/+$/, "");
  if (p === "") return "Universal";
  if (p === "/api") return "API";
  if (p === "/event") return "Event";
  return null;
}

/** message params: a string, a segment array or one segment (api/README.md, 参数). */
function isMessage(v: unknown): v is string | Segment | Segment[] {
  const isSeg = (s: unknown) =>
    typeof s === "object" && s !== null && typeof (s as { type?: unknown }).type === "string";
  return typeof v === "string" || (Array.isArray(v) && v.every(isSeg)) || isSeg(v);
}

function summarise(actions: ReceivedAction[]): string {
  if (!actions.length) return "none";
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(`${a.action}:${a.outcome}`, (counts.get(`${a.action}:${a.outcome}`) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(", ");
}

/** Segments of a received send action's message, whatever form it came in. */
export function segmentsOf(message: unknown): Segment[] {
  if (Array.isArray(message)) return message as Segment[]; // checked by isMessage when the action was answered
  if (typeof message === "object" && message !== null) return [message as Segment];
  return [];
}

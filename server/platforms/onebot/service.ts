// The OneBot v11 adapter's transport, one per server: owns every connection (reverse and forward),
// routes actions of a bot account to a connection that takes them, hands events to the inbound
// handler in order, reports the connections (GET /api/platforms) and records them coming and going
// (platform.connected / platform.disconnected in the ledger's platform stream).
import type { Server } from "node:http";
import type { WebSocket } from "ws";
import { PLATFORM_STREAM_ID } from "../../../lib/api/schemas";
import type { OneBotConfig } from "../../../lib/config/schema";
import { onebotIdSchema, type OneBotEventFrame } from "../../../lib/platforms/onebot";
import type { PlatformConnection } from "../../../lib/platforms/status";
import type { EventData } from "../../../lib/events/schemas";
import { systemClock, type Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { PlatformEvent, PlatformEventSink } from "../seam";
import { OneBotActionError, type OneBotApi } from "./api";
import { emptyStats, OneBotConnection, type ConnectionStats, type OneBotMode, type OneBotRole } from "./connection";
import { DEFAULT_BACKOFF, OneBotForwardClient, type BackoffOptions } from "./forward";
import { DEFAULT_INTAKE, type IntakeLimits } from "./intake";
import { OneBotReverse, type ReverseHandshake } from "./reverse";

/** Inbound: one event of a connection, with the API of its bot account (H2's inbound mapping implements it). */
export type OneBotEventHandler = (event: OneBotEventFrame, api: OneBotApi) => Promise<void>;

/** A cluster node's way to an account whose connection is on another node (cluster-relay.ts). */
export type RemoteActions = (
  selfId: string,
  action: string,
  params: Record<string, unknown>,
  opts?: { timeoutMs?: number },
) => Promise<unknown>;

/** A forward URL of the config with its token. */
export interface ForwardTarget {
  url: string;
  accessToken?: string;
}

/**
 * A cluster node connects only the forward URLs it holds the lock of: given the configured targets,
 * it calls connectForward / disconnectForward as locks come and go.
 */
export interface ForwardPlacement {
  start(targets: ForwardTarget[]): void;
}

export interface OneBotTuning {
  /** Frames above this close the connection (WebSocket close 1009). */
  maxFrameBytes: number;
  backoff: BackoffOptions;
  /** Events of one connection waiting for the handler before its reading pauses. */
  intake: IntakeLimits;
}

export const DEFAULT_TUNING: OneBotTuning = {
  maxFrameBytes: 16 * 1024 * 1024,
  backoff: DEFAULT_BACKOFF,
  intake: DEFAULT_INTAKE,
};

export interface OneBotServiceOptions {
  /** Read when a connection is made: live config changes apply to the next one. */
  config: () => OneBotConfig;
  logger: Logger;
  clock?: Clock;
  /** Until set (setEventHandler), events are counted and dropped. */
  onEvent?: OneBotEventHandler;
  tuning?: Partial<OneBotTuning>;
}

/** One row of the panel: a forward URL, or a reverse (self id, role); counters live across reconnects. */
interface Endpoint {
  mode: OneBotMode;
  role: OneBotRole;
  selfId: string;
  address: string;
  stats: ConnectionStats;
  connection: OneBotConnection | null;
  forward?: OneBotForwardClient;
}

/** Shutdown waits this long for the events received to get through the handler. */
const DRAIN_TIMEOUT_MS = 10_000;

const ignoreEvents: OneBotEventHandler = () => Promise.resolve();

/** Whether the config asks for any OneBot connection at all. */
export function onebotConfigured(config: OneBotConfig): boolean {
  return config.reverse.enabled || config.forward.length > 0;
}

export class OneBotService {
  private readonly clock: Clock;
  private readonly tuning: OneBotTuning;
  private readonly endpoints = new Map<string, Endpoint>();
  /** Connections whose platform.connected was emitted and whose platform.disconnected is still due. */
  private readonly announced = new Set<OneBotConnection>();
  private handler: OneBotEventHandler;
  private events: PlatformEventSink | null = null;
  private reverse: OneBotReverse | null = null;
  private closing: Promise<void> | null = null;
  private remote: RemoteActions | null = null;
  private placement: ForwardPlacement | null = null;
  private readonly changeListeners = new Set<() => void>();

  constructor(private readonly opts: OneBotServiceOptions) {
    this.clock = opts.clock ?? systemClock;
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.handler = opts.onEvent ?? ignoreEvents;
  }

  /** The inbound handler; applies to events handed over from now on. */
  setEventHandler(handler: OneBotEventHandler): void {
    this.handler = handler;
  }

  /** Where connection events go; none are emitted before this is set. */
  bindEvents(sink: PlatformEventSink): void {
    this.events = sink;
  }

  /** Records an event in the platform stream (a friend request, a group invitation); none before bindEvents. */
  record<T extends PlatformEvent>(type: T, data: EventData<T>): void {
    this.events?.emit(PLATFORM_STREAM_ID, type, data);
  }

  /** Takes the reverse WebSocket paths of this HTTP server (refused with 403 while reverse is disabled). */
  attachReverse(server: Server): void {
    this.reverse ??= new OneBotReverse({
      settings: () => {
        const config = this.opts.config();
        return { enabled: config.reverse.enabled, accessToken: config.accessToken };
      },
      maxPayloadBytes: this.tuning.maxFrameBytes,
      logger: this.opts.logger,
      onConnection: (socket, handshake) => this.onReverse(socket, handshake),
    });
    this.reverse.attach(server);
  }

  /**
   * Connects to every configured forward URL (and keeps reconnecting until close); with a placement
   * set (a cluster node), only to those the placement hands over.
   */
  startForward(): void {
    if (this.closing) return;
    const targets = this.opts.config().forward;
    if (this.placement) return this.placement.start(targets);
    for (const target of targets) this.connectForward(target);
  }

  /** Hands the choice of forward URLs to connect to a cluster placement (before startForward). */
  setForwardPlacement(placement: ForwardPlacement): void {
    this.placement = placement;
  }

  /** Connects to one forward URL and keeps reconnecting until close or disconnectForward. */
  connectForward({ url, accessToken }: ForwardTarget): void {
    const key = `forward:${url}`;
    if (this.closing || this.endpoints.has(key)) return;
    const client = new OneBotForwardClient({
      url,
      accessToken,
      maxPayloadBytes: this.tuning.maxFrameBytes,
      backoff: this.tuning.backoff,
      clock: this.clock,
      logger: this.opts.logger,
      onOpen: (socket) => this.onForwardOpen(endpoint, socket),
    });
    const endpoint: Endpoint = {
      mode: "forward",
      role: "Universal",
      selfId: "",
      address: url,
      stats: client.stats,
      connection: null,
      forward: client,
    };
    this.endpoints.set(key, endpoint);
    client.start();
  }

  /** Stops connecting to a forward URL and closes its connection (another node took it over). */
  disconnectForward(url: string, reason: string): void {
    const key = `forward:${url}`;
    const endpoint = this.endpoints.get(key);
    if (!endpoint) return;
    this.endpoints.delete(key);
    endpoint.forward?.stop();
    endpoint.connection?.close(reason, 1001);
  }

  /** Forward URLs this service connects to now. */
  forwardUrls(): string[] {
    return [...this.endpoints.values()].filter((e) => e.mode === "forward").map((e) => e.address);
  }

  /** Actions of accounts with no connection here go there (a cluster node: to the node holding one). */
  setRemoteActions(remote: RemoteActions | null): void {
    this.remote = remote;
  }

  /** Called whenever a connection of a known account opens or closes. */
  onConnectionsChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The actions of one bot account, through whichever of its connections takes actions at call time. */
  api(selfId: string): OneBotApi {
    return { selfId, call: (action, params, opts) => this.callAs(selfId, action, params, opts) };
  }

  /** Bot accounts with an open connection. */
  selfIds(): string[] {
    const ids = new Set<string>();
    for (const e of this.endpoints.values()) if (e.connection?.isOpen && e.connection.knowsSelfId) ids.add(e.selfId);
    return [...ids];
  }

  /** Bot accounts with an open connection here that takes actions. */
  actionSelfIds(): string[] {
    const ids = new Set<string>();
    for (const e of this.endpoints.values()) {
      const c = e.connection;
      if (c?.isOpen && c.canCall && c.knowsSelfId) ids.add(c.selfId);
    }
    return [...ids];
  }

  status(): PlatformConnection[] {
    const rows = [...this.endpoints.values()];
    return rows.map((e) => {
      // An Event connection takes no actions: its implementation and login are those of its account's API side.
      const sibling = e.selfId
        ? rows.find((o) => o !== e && o.selfId === e.selfId && o.stats.implementation)
        : undefined;
      const implementation = e.stats.implementation ?? sibling?.stats.implementation;
      const login = e.stats.login ?? sibling?.stats.login;
      const open = e.connection?.isOpen ?? false;
      return {
        platform: "onebot" as const,
        selfId: e.selfId,
        mode: e.mode,
        role: e.role,
        address: e.address,
        state: open ? "open" : e.forward && !e.forward.isStopped ? "connecting" : "closed",
        ...(implementation ? { implementation } : {}),
        ...(login ? { login } : {}),
        connectedSince: open && e.connection ? e.connection.connectedSince : null,
        lastHeartbeatAt: e.stats.lastHeartbeatAt,
        eventsIn: e.stats.eventsIn,
        actionsOut: e.stats.actionsOut,
        errors: e.stats.errors,
        ...(e.stats.lastError ? { lastError: e.stats.lastError } : {}),
        ...(open && e.connection ? { backlog: e.connection.backlog } : {}),
      };
    });
  }

  /**
   * Refuses new connections, stops reconnecting, closes every connection (pending actions reject with
   * "closed") and waits until the events already received have been through the handler.
   */
  close(reason = "server shutting down"): Promise<void> {
    this.closing ??= (async () => {
      this.reverse?.close();
      const connections: OneBotConnection[] = [];
      for (const e of this.endpoints.values()) {
        e.forward?.stop();
        if (e.connection) connections.push(e.connection);
      }
      for (const c of connections) c.close(reason, 1001);
      const settled = Promise.all(connections.map(async (c) => (await c.whenClosed, await c.drained())));
      // A handler that never returns must not hold the shutdown forever.
      let timer: { cancel(): void } | null = null;
      const late = new Promise<"late">(
        (resolve) => (timer = this.clock.setTimer(DRAIN_TIMEOUT_MS, () => resolve("late"))),
      );
      const outcome = await Promise.race([settled, late]);
      timer!.cancel(); // set synchronously by the promise executor above
      if (outcome === "late")
        this.opts.logger.warn(`[onebot] closed with events still in the inbound handler after ${DRAIN_TIMEOUT_MS} ms`);
    })();
    return this.closing;
  }

  private onReverse(socket: WebSocket, handshake: ReverseHandshake): void {
    const key = `reverse:${handshake.selfId}:${handshake.role}`;
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = {
        mode: "reverse",
        role: handshake.role,
        selfId: handshake.selfId,
        address: "",
        stats: emptyStats(),
        connection: null,
      };
      this.endpoints.set(key, endpoint);
    }
    endpoint.address = handshake.address;
    const previous = endpoint.connection;
    if (previous) {
      // The implementation reconnected (or a second one claims the account): the newest wins.
      this.announceClosed(previous, "replaced by a newer connection");
      previous.close("replaced by a newer connection", 4001);
    }
    const connection = this.connect(endpoint, socket, handshake.selfId);
    if (this.closing) return connection.close("server shutting down", 1001);
    this.announceOpen(connection);
    this.fetchInfo(endpoint, connection);
  }

  private onForwardOpen(endpoint: Endpoint, socket: WebSocket): void {
    if (this.closing) return void socket.close(1001, "server shutting down");
    const connection = this.connect(endpoint, socket, null);
    this.fetchInfo(endpoint, connection);
  }

  private connect(endpoint: Endpoint, socket: WebSocket, selfId: string | null): OneBotConnection {
    const config = this.opts.config();
    const connection = new OneBotConnection({
      socket,
      mode: endpoint.mode,
      role: endpoint.role,
      selfId,
      address: endpoint.address,
      stats: endpoint.stats,
      clock: this.clock,
      logger: this.opts.logger,
      actionTimeoutMs: config.actionTimeoutMs,
      heartbeatTimeoutMs: config.heartbeatTimeoutMs,
      intake: this.tuning.intake,
      onEvent: (event, conn) => this.handler(event, this.api(conn.selfId)),
      onSelfId: (conn) => {
        endpoint.selfId = conn.selfId;
        this.announceOpen(conn);
      },
      onClose: (conn, reason) => {
        if (endpoint.connection === conn) endpoint.connection = null;
        this.announceClosed(conn, reason);
      },
    });
    endpoint.connection = connection;
    return connection;
  }

  /** get_version_info and get_login_info once per connection, for the panel (and a forward connection's self id). */
  private fetchInfo(endpoint: Endpoint, connection: OneBotConnection): void {
    if (!connection.canCall) return;
    void connection.call("get_login_info", {}).then(
      (data) => {
        const info = data as { user_id?: unknown; nickname?: unknown } | null; // checked field by field below
        const userId = onebotIdSchema.safeParse(info?.user_id);
        if (!userId.success) return connection.recordError("get_login_info answered no user_id");
        endpoint.stats.login = {
          userId: userId.data,
          nickname: typeof info?.nickname === "string" ? info.nickname : "",
        };
        connection.adoptSelfId(userId.data);
      },
      (error: unknown) => recordInfoError(connection, "get_login_info", error),
    );
    void connection.call("get_version_info", {}).then(
      (data) => {
        const info = data as { app_name?: unknown; app_version?: unknown } | null; // checked field by field below
        if (typeof info?.app_name !== "string") return;
        endpoint.stats.implementation = {
          name: info.app_name,
          version: typeof info.app_version === "string" ? info.app_version : "",
        };
      },
      (error: unknown) => recordInfoError(connection, "get_version_info", error),
    );
  }

  private callAs(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    opts?: { timeoutMs?: number },
  ): Promise<unknown> {
    const local = this.actionConnection(selfId);
    if (local) return local.call(action, params, opts);
    if (this.remote) return this.remote(selfId, action, params, opts);
    return Promise.reject(
      new OneBotActionError(action, "no_connection", `no open connection of ${selfId} takes actions`),
    );
  }

  /** An action through a connection of this process only (what another node asks of this one). */
  callHere(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    opts?: { timeoutMs?: number },
  ): Promise<unknown> {
    const local = this.actionConnection(selfId);
    if (local) return local.call(action, params, opts);
    return Promise.reject(
      new OneBotActionError(action, "no_connection", `no open connection of ${selfId} takes actions`),
    );
  }

  private actionConnection(selfId: string): OneBotConnection | null {
    let best: OneBotConnection | null = null;
    for (const e of this.endpoints.values()) {
      const c = e.connection;
      if (!c || !c.isOpen || !c.canCall || !c.knowsSelfId || c.selfId !== selfId) continue;
      // A dedicated API connection over a Universal one; among equals the newest.
      if (!best || (c.role === "API" && best.role !== "API") || (c.role === best.role && newer(c, best))) best = c;
    }
    return best;
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  private announceOpen(connection: OneBotConnection): void {
    if (!connection.knowsSelfId || this.announced.has(connection)) return;
    this.announced.add(connection);
    this.changed();
    this.events?.emit(PLATFORM_STREAM_ID, "platform.connected", {
      platform: "onebot",
      selfId: connection.selfId,
      mode: connection.mode,
      role: connection.role,
    });
    this.opts.logger.info(
      `[onebot] ${connection.mode} ${connection.role} connection of ${connection.selfId} (${connection.address}) open`,
    );
  }

  private announceClosed(connection: OneBotConnection, reason: string): void {
    if (!this.announced.delete(connection)) return;
    this.changed();
    this.events?.emit(PLATFORM_STREAM_ID, "platform.disconnected", {
      platform: "onebot",
      selfId: connection.selfId,
      mode: connection.mode,
      role: connection.role,
      reason,
    });
    this.opts.logger.info(
      `[onebot] ${connection.mode} ${connection.role} connection of ${connection.selfId}: ${reason}`,
    );
  }
}

function newer(a: OneBotConnection, b: OneBotConnection): boolean {
  return a.connectedSince >= b.connectedSince;
}

/**
 * A failed info lookup is the connection's error, unless the connection closed under it: the close has
 * its own reason, and must not hide the error that closed it (an implementation's refusal).
 */
function recordInfoError(connection: OneBotConnection, action: string, error: unknown): void {
  if (error instanceof OneBotActionError && error.failure === "closed") return;
  connection.recordError(`${action}: ${error instanceof Error ? error.message : String(error)}`);
}

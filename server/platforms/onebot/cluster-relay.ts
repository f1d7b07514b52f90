// OneBot's cluster relay: OneBot on a cluster node, speaking to the cluster only through the seam's
// ports (AdapterClusterPorts: the node's calls, the session directory, the shared Redis; claims and
// published connections last the lease time unrenewed, renewed every third of it). An implementation may connect to any node (reverse, through the load
// balancer), and each forward URL is connected by exactly one node (a Redis claim that lapses when that
// node dies, so another takes the URL over). Around that:
// - a registry in Redis says which node holds an action-taking connection of each bot account; an action
//   of an account with no connection here is run by that node (through the node's calls) and comes back
//   with the same outcome: data, or the OneBotActionError it failed with (timeout, closed, failed, retcode);
// - an inbound event goes to the node owning its session, and is retried toward the new owner while the
//   ownership moves, so the connection's node acknowledges it only once the owner has taken it;
// - platform.connected / platform.disconnected go to the owner of the platform stream (one writer);
// - each node publishes its connections, so GET /api/platforms on any node shows every node's.
import { Redis } from "ioredis";
import { PLATFORM_STREAM_ID } from "../../../lib/api/schemas";
import type { EventData } from "../../../lib/events/schemas";
import {
  onebotNodeSnapshotSchema,
  onebotRemoteActionSchema,
  onebotRemoteEventSchema,
  onebotRemoteOutcomeSchema,
  onebotRemotePlatformEventSchema,
  type OneBotNodeSnapshot,
  type OneBotRemoteOutcome,
} from "../../../lib/platforms/cluster";
import type { InboundCounters, PlatformConnection } from "../../../lib/platforms/status";
import { systemClock, type Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { AdapterClusterPorts, PlatformEvent, PlatformEventSink } from "../seam";
import { OneBotActionError } from "./api";
import { sessionIdOfEvent } from "./event-session";
import { RedisClaims } from "./redis-claims";
import type { ForwardTarget, OneBotEventHandler, OneBotService } from "./service";

const METHOD = {
  action: "onebot.action",
  event: "onebot.event",
  platformEvent: "onebot.platform-event",
} as const;

/** How long one hand-over of an event waits for a live owner by default (lookups of a quote or names take time). */
export const EVENT_CALL_TIMEOUT_MS = 30_000;

/** A remote action's call waits this much longer than the action's own timeout, which the holder enforces. */
const ACTION_CALL_MARGIN_MS = 2_000;

/** The node's ports (the seam's AdapterClusterPorts: its calls, the session directory, Redis, the lease time). */
export interface OneBotClusterOptions extends AdapterClusterPorts {
  service: OneBotService;
  /** Handles an event on this node (the inbound mapping), once this node owns its session. */
  handleHere: OneBotEventHandler;
  /** This node's inbound counters (null when the server runs another handler). */
  inbound: () => InboundCounters | null;
  /** The configured action timeout (platforms.onebot.actionTimeoutMs), for actions without their own. */
  actionTimeoutMs: () => number;
  logger: Logger;
  clock?: Clock;
  /** Prefix of every Redis key (tests: one per run). Default "maisaka:onebot:". */
  prefix?: string;
  /** How long an inbound event is retried toward its session's owner before it counts as failed (default 60 s). */
  eventRetryMs?: number;
  /** How long one hand-over of an event waits for a live owner (default EVENT_CALL_TIMEOUT_MS). */
  eventCallTimeoutMs?: number;
}

export class OneBotCluster {
  private readonly nodeId: string;
  private readonly clock: Clock;
  private readonly prefix: string;
  private readonly bots: RedisClaims;
  private readonly forwards: RedisClaims;
  /** Bot accounts this node holds the registry entry of. */
  private readonly claimedBots = new Set<string>();
  /** Bot accounts with an action-taking connection here at the last sync. */
  private readonly botsHere = new Set<string>();
  /** Forward URLs this node holds the lock of. */
  private readonly heldForwards = new Set<string>();
  /** Forward URLs nobody held at the last sync. */
  private readonly vacantForwards = new Set<string>();
  /** A sync has completed since the start (at start a free URL is taken at once). */
  private everSynced = false;
  /** The configured forward URLs, once the server asked for them to be connected. */
  private targets: ForwardTarget[] | null = null;
  private localEvents: PlatformEventSink | null = null;
  /** Platform events leave in the order they happened. */
  private platformChain: Promise<void> = Promise.resolve();
  private timer: ReturnType<Clock["setTimer"]> | null = null;
  private syncing: Promise<void> | null = null;
  private resync = false;
  private unsubscribe: (() => void) | null = null;
  private closed = false;

  private constructor(
    private readonly opts: OneBotClusterOptions,
    private readonly redis: Redis,
  ) {
    this.nodeId = opts.nodeId;
    this.clock = opts.clock ?? systemClock;
    this.prefix = opts.prefix ?? "maisaka:onebot:";
    this.bots = new RedisClaims(redis, this.nodeId, opts.ttlMs, `${this.prefix}bot:`);
    this.forwards = new RedisClaims(redis, this.nodeId, opts.ttlMs, `${this.prefix}forward:`);
  }

  /**
   * Connects to Redis, serves the other nodes' calls and takes over the service's routing: call it
   * after the inbound mapping is attached and before the server starts the forward connections.
   */
  static async start(opts: OneBotClusterOptions): Promise<OneBotCluster> {
    const redis = new Redis(opts.redisUrl, {
      lazyConnect: true,
      connectionName: `maisaka:onebot:${opts.nodeId}`,
      // Not queued while Redis is away: a registry lookup fails at once instead of holding an action.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // A reply lost with its connection must not hold the renewals forever.
      commandTimeout: Math.max(1_000, opts.ttlMs),
      retryStrategy: (attempt: number) => Math.min(attempt * 50, 500),
    });
    let lastWarning = "";
    redis.on("error", (e: Error) => {
      if (e.message !== lastWarning) opts.logger.warn(`[onebot] cluster redis: ${e.message}`);
      lastWarning = e.message;
    });
    redis.on("ready", () => (lastWarning = ""));
    await redis.connect();
    const cluster = new OneBotCluster(opts, redis);
    cluster.attach();
    return cluster;
  }

  /** The sink the service should emit platform events to: the platform stream's owner writes them. */
  events(local: PlatformEventSink): PlatformEventSink {
    this.localEvents = local;
    return {
      emit: (sessionId, type, data) => {
        this.platformChain = this.platformChain.then(() => this.emitPlatform(local, sessionId, type, data));
      },
    };
  }

  /** Every node's connections, each row naming its node (this node's live, the others' as last published). */
  async status(): Promise<PlatformConnection[]> {
    const here = this.opts.service.status().map((row) => ({ ...row, node: this.nodeId }));
    const others = await this.otherSnapshots();
    return [...here, ...others.flatMap((s) => s.connections.map((row) => ({ ...row, node: s.node })))];
  }

  /** The inbound counters summed over the nodes. */
  async inbound(): Promise<InboundCounters | null> {
    const all = [this.opts.inbound(), ...(await this.otherSnapshots()).map((s) => s.inbound)];
    let sum: InboundCounters | null = null;
    for (const counters of all) {
      if (!counters) continue;
      if (!sum) sum = { ...counters };
      else for (const key of Object.keys(sum) as (keyof InboundCounters)[]) sum[key] += counters[key];
    }
    return sum;
  }

  /** After the service closed its connections: gives up every claim at once, so other nodes take over now. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timer?.cancel();
    this.unsubscribe?.();
    await this.syncing;
    await this.platformChain;
    const releases = [
      ...[...this.claimedBots].map((id) => this.bots.release(id)),
      ...[...this.heldForwards].map((url) => this.forwards.release(url)),
      this.redis.del(this.statusKey(this.nodeId)),
      this.redis.srem(this.nodesKey(), this.nodeId),
    ];
    const failed = (await Promise.allSettled(releases)).filter((r) => r.status === "rejected").length;
    if (failed) this.opts.logger.warn(`[onebot] ${failed} cluster claims not released: they lapse on their own`);
    this.claimedBots.clear();
    this.heldForwards.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private attach(): void {
    const { service, messenger } = this.opts;
    messenger.handle(METHOD.action, (payload) => this.serveAction(payload));
    messenger.handle(METHOD.event, (payload) => this.serveEvent(payload));
    messenger.handle(METHOD.platformEvent, (payload) => this.servePlatformEvent(payload));
    service.setRemoteActions((selfId, action, params, o) => this.callRemote(selfId, action, params, o));
    service.setForwardPlacement({
      start: (targets) => {
        this.targets = targets;
        this.sync();
      },
    });
    service.setEventHandler((event, api) => this.route(event, api));
    // A connection opening or closing updates the registry at once, not at the next renewal.
    this.unsubscribe = service.onConnectionsChange(() => this.sync());
    this.sync();
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.clock.setTimer(Math.max(50, Math.floor(this.opts.ttlMs / 3)), () => {
      this.sync();
      this.schedule();
    });
  }

  /** Renews the claims and the published connections; runs one at a time, once more if asked meanwhile. */
  private sync(): void {
    if (this.closed) return;
    if (this.syncing) {
      this.resync = true;
      return;
    }
    this.syncing = this.syncOnce()
      .catch((e: unknown) => this.opts.logger.warn(`[onebot] cluster sync: ${errorText(e)}`))
      .finally(() => {
        this.syncing = null;
        if (this.resync) {
          this.resync = false;
          this.sync();
        }
      });
  }

  private async syncOnce(): Promise<void> {
    await this.syncBots();
    await this.syncForwards();
    await this.publishSnapshot();
    if (this.targets) this.everSynced = true;
  }

  private async syncBots(): Promise<void> {
    const here = new Set(this.opts.service.actionSelfIds());
    for (const selfId of here) {
      if (!this.botsHere.has(selfId)) {
        // A connection that just opened here wins, as the newest connection does on one process: the
        // implementation reconnected (through the load balancer) after the node it was on died.
        await this.bots.take(selfId);
        this.botsHere.add(selfId);
        this.claimedBots.add(selfId);
      } else if (await this.bots.claim(selfId)) this.claimedBots.add(selfId);
      // Another node's newer connection holds the account; this node takes it back when that one lets go.
      else this.claimedBots.delete(selfId);
    }
    for (const selfId of [...this.botsHere]) if (!here.has(selfId)) this.botsHere.delete(selfId);
    for (const selfId of [...this.claimedBots]) {
      if (here.has(selfId)) continue;
      this.claimedBots.delete(selfId);
      await this.bots.release(selfId);
    }
  }

  private async syncForwards(): Promise<void> {
    const { service } = this.opts;
    for (const target of this.targets ?? []) {
      let mine: boolean;
      try {
        mine = await this.forwardClaim(target.url);
      } catch (e) {
        // Redis away: nobody can take the URL meanwhile, so a held connection stays up.
        this.opts.logger.warn(`[onebot] forward lock of ${target.url}: ${errorText(e)}`);
        continue;
      }
      const running = service.forwardUrls().includes(target.url);
      if (mine) {
        this.heldForwards.add(target.url);
        if (!running) {
          this.opts.logger.info(`[onebot] ${this.nodeId} connects forward ${target.url}`);
          service.connectForward(target);
        }
      } else {
        this.heldForwards.delete(target.url);
        // This node lost the lock (it paused past its time to live): the node that has it connects now.
        if (running) service.disconnectForward(target.url, "another cluster node holds this forward URL");
      }
    }
  }

  /**
   * Renews a held lock; takes a free one only once it was free at the previous sync too. After a Redis
   * restart (every lock gone) the node already connected renews first and keeps its connection, instead
   * of whichever node reconnected first taking the URL and making the implementation reconnect.
   */
  private async forwardClaim(url: string): Promise<boolean> {
    if (this.heldForwards.has(url)) return this.forwards.claim(url);
    const holder = await this.forwards.holder(url);
    const wasVacant = this.vacantForwards.has(url);
    if (holder !== null) {
      this.vacantForwards.delete(url);
      return false;
    }
    this.vacantForwards.add(url);
    if (!wasVacant && this.everSynced) return false;
    const mine = await this.forwards.claim(url);
    if (mine) this.vacantForwards.delete(url);
    return mine;
  }

  private async publishSnapshot(): Promise<void> {
    const snapshot: OneBotNodeSnapshot = {
      node: this.nodeId,
      connections: this.opts.service.status(),
      inbound: this.opts.inbound(),
    };
    await this.redis
      .multi()
      .set(this.statusKey(this.nodeId), JSON.stringify(snapshot), "PX", this.opts.ttlMs)
      .sadd(this.nodesKey(), this.nodeId)
      .exec();
  }

  private async otherSnapshots(): Promise<OneBotNodeSnapshot[]> {
    try {
      const nodes = (await this.redis.smembers(this.nodesKey())).filter((n) => n !== this.nodeId);
      if (!nodes.length) return [];
      const values = await this.redis.mget(nodes.map((n) => this.statusKey(n)));
      const snapshots: OneBotNodeSnapshot[] = [];
      const gone: string[] = [];
      values.forEach((value, i) => {
        if (value === null) return void gone.push(nodes[i]);
        const parsed = onebotNodeSnapshotSchema.safeParse(safeJson(value));
        if (parsed.success) snapshots.push(parsed.data);
      });
      // A node that stopped publishing (dead, or closed) leaves the list.
      if (gone.length) await this.redis.srem(this.nodesKey(), ...gone);
      return snapshots;
    } catch (e) {
      this.opts.logger.warn(`[onebot] other nodes' connections unavailable: ${errorText(e)}`);
      return [];
    }
  }

  private async callRemote(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    o?: { timeoutMs?: number },
  ): Promise<unknown> {
    let holder: string | null;
    try {
      holder = await this.bots.holder(selfId);
    } catch (e) {
      throw new OneBotActionError(action, "no_connection", `the cluster's connection registry: ${errorText(e)}`);
    }
    // This node's own entry without a connection here: it closed a moment ago.
    if (holder === null || holder === this.nodeId)
      throw new OneBotActionError(action, "no_connection", `no open connection of ${selfId} takes actions on any node`);
    const timeoutMs = o?.timeoutMs ?? this.opts.actionTimeoutMs();
    let answer: unknown;
    try {
      answer = await this.opts.messenger.call(
        holder,
        METHOD.action,
        { selfId, action, params, timeoutMs },
        { timeoutMs: timeoutMs + ACTION_CALL_MARGIN_MS },
      );
    } catch (e) {
      // The holder died or is cut off: whether it sent the action is unknown, as with a dropped connection.
      throw new OneBotActionError(action, "closed", `node ${holder} holding ${selfId}'s connection: ${errorText(e)}`);
    }
    const outcome = onebotRemoteOutcomeSchema.safeParse(answer);
    if (!outcome.success) throw new OneBotActionError(action, "failed", `a malformed answer from node ${holder}`);
    if (outcome.data.ok) return outcome.data.data;
    const { failure, message, retcode } = outcome.data;
    throw new OneBotActionError(action, failure, message, retcode);
  }

  private async serveAction(payload: unknown): Promise<OneBotRemoteOutcome> {
    const { selfId, action, params, timeoutMs } = onebotRemoteActionSchema.parse(payload);
    try {
      const data = await this.opts.service.callHere(selfId, action, params, timeoutMs ? { timeoutMs } : undefined);
      return { ok: true, data: data ?? null };
    } catch (e) {
      if (e instanceof OneBotActionError)
        return {
          ok: false,
          failure: e.failure,
          message: e.message,
          ...(e.retcode !== undefined ? { retcode: e.retcode } : {}),
        };
      return { ok: false, failure: "failed", message: errorText(e) };
    }
  }

  /**
   * An event of a connection here: handled here when this node owns its session, else handed to the
   * owner. A failed hand-over (the owner died, or lost the session meanwhile) asks for the owner again
   * and retries, until eventRetryMs; then it fails (the connection records it as an error).
   */
  private async route(event: Parameters<OneBotEventHandler>[0], api: Parameters<OneBotEventHandler>[1]): Promise<void> {
    const sessionId = sessionIdOfEvent(event);
    if (sessionId === null) return this.opts.handleHere(event, api);
    const retryMs = this.opts.eventRetryMs ?? 60_000;
    const deadline = this.clock.now() + retryMs;
    let delayMs = 100;
    for (;;) {
      let lastError: string;
      try {
        const owner = await this.opts.directory.ownerOf(sessionId);
        if (owner === this.nodeId) return await this.handleAsOwner(event, api, sessionId);
        return await this.handOver(event, sessionId, owner);
      } catch (e) {
        lastError = errorText(e);
      }
      if (this.closed || this.clock.now() + delayMs > deadline)
        throw new Error(`event of ${sessionId} not taken by its owner within ${retryMs} ms: ${lastError}`);
      await new Promise<void>((resolve) => this.clock.setTimer(delayMs, resolve));
      delayMs = Math.min(delayMs * 2, 1_000);
    }
  }

  /**
   * One hand-over of an event to its session's owner. It may take long (the owner looks up a quote or
   * names), but never waits on an owner known gone: once its lease lapsed or moved, the call is given up
   * and route() asks for the owner again (a reply to the given-up call is dropped; the owner's store
   * takes a message once, by its id, should both have taken it).
   */
  private async handOver(event: Parameters<OneBotEventHandler>[0], sessionId: string, owner: string): Promise<void> {
    const done = new AbortController();
    const lost = this.opts.directory.ownerLost(sessionId, owner, done.signal).then((gone) => {
      if (gone) done.abort(new Error(`${owner} no longer runs ${sessionId}: its lease lapsed or moved`));
    });
    try {
      await this.opts.messenger.call(
        owner,
        METHOD.event,
        { event },
        { timeoutMs: this.opts.eventCallTimeoutMs ?? EVENT_CALL_TIMEOUT_MS, signal: done.signal },
      );
    } finally {
      done.abort();
      await lost;
    }
  }

  private async serveEvent(payload: unknown): Promise<null> {
    const { event } = onebotRemoteEventSchema.parse(payload);
    const api = this.opts.service.api(event.self_id);
    const sessionId = sessionIdOfEvent(event);
    if (sessionId === null) {
      await this.opts.handleHere(event, api);
      return null;
    }
    // Asked as the owner: this node takes the session now if it should, or refuses so the sender asks again.
    const owner = await this.opts.directory.ownerOf(sessionId);
    if (owner !== this.nodeId) throw new Error(`${this.nodeId} does not run ${sessionId} (${owner} does)`);
    await this.handleAsOwner(event, api, sessionId);
    return null;
  }

  /**
   * The inbound mapping counts a failure instead of throwing; a session lost while it ran (its lease
   * moved, so the engine refused the message) must be retried at the new owner instead, which takes
   * it once (the store's dedupe by message id).
   */
  private async handleAsOwner(
    event: Parameters<OneBotEventHandler>[0],
    api: Parameters<OneBotEventHandler>[1],
    sessionId: string,
  ): Promise<void> {
    await this.opts.handleHere(event, api);
    if (!this.opts.directory.ownsLocally(sessionId))
      throw new Error(`${this.nodeId} lost ${sessionId} while handling the event: to be retried at its new owner`);
  }

  private async emitPlatform<T extends PlatformEvent>(
    local: PlatformEventSink,
    sessionId: string,
    type: T,
    data: EventData<T>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const owner = await this.opts.directory.ownerOf(sessionId);
        if (owner === this.nodeId) return void local.emit(sessionId, type, data);
        await this.opts.messenger.call(owner, METHOD.platformEvent, { type, payload: data });
        return;
      } catch (e) {
        if (attempt >= 3)
          return this.opts.logger.warn(`[onebot] ${type} of ${data.selfId} not recorded: ${errorText(e)}`);
      }
    }
  }

  private async servePlatformEvent(payload: unknown): Promise<null> {
    const { type, payload: data } = onebotRemotePlatformEventSchema.parse(payload);
    const owner = await this.opts.directory.ownerOf(PLATFORM_STREAM_ID);
    if (owner !== this.nodeId || !this.localEvents)
      throw new Error(`${this.nodeId} does not write ${PLATFORM_STREAM_ID} (${owner} does)`);
    // Built by the sending node's service for this very event type.
    this.localEvents.emit(PLATFORM_STREAM_ID, type, data as EventData<typeof type>);
    return null;
  }

  private statusKey(nodeId: string): string {
    return `${this.prefix}status:${nodeId}`;
  }

  private nodesKey(): string {
    return `${this.prefix}nodes`;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

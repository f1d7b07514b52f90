// The OneBot adapter: OneBot v11 behind the platform seam (server/platforms/seam.ts). Made from the
// config before the engine (its connections and outbound sink: the engine delivers through them), then
// attached once the engine exists (the inbound mapping, the audience operators change live laid over
// the config before any event, and on a cluster node the relay of actions and events between nodes).
import type { AdapterStatus, PlatformConnection } from "../../../lib/platforms/status";
import type { EventLedger } from "../../monitor/ledger";
import type {
  AdapterClusterPorts,
  AdapterEnginePorts,
  AdapterInit,
  AdapterServing,
  PlatformAdapter,
  PlatformModule,
} from "../seam";
import { OneBotAudienceSettings } from "./audience-settings";
import { OneBotCluster } from "./cluster-relay";
import { createOneBotInbound, type OneBotInbound } from "./inbound";
import { OneBotOutbound } from "./outbound";
import { recentRequests } from "./requests";
import { onebotRoutes } from "./routes";
import { chatOfSessionId } from "./session-ids";
import { onebotConfigured, OneBotService, type OneBotEventHandler, type OneBotTuning } from "./service";

/** What the server's caller may set for OneBot (AppServerOptions.onebot; tests and benchmarks). */
export interface OneBotOptions {
  /** Replaces the inbound mapping (events are handed to it instead). */
  onEvent?: OneBotEventHandler;
  /** Transport tuning (tests shorten the reconnect backoff). */
  tuning?: Partial<OneBotTuning>;
  /** A cluster node's ports, in place of those the server derives from its cluster membership. */
  cluster?: AdapterClusterPorts;
}

export class OneBotAdapter implements PlatformAdapter {
  readonly platform = "onebot";
  /** The connections (reverse and forward), their actions and their status rows. */
  readonly service: OneBotService;
  /** OneBot chats' messages go out through the connections of their bot account. */
  readonly outbound: OneBotOutbound;
  private mapping: OneBotInbound | null = null;
  private settings: OneBotAudienceSettings | null = null;
  /** The cluster routing (null on a single process). */
  private relay: OneBotCluster | null = null;
  private ledger: EventLedger | null = null;

  constructor(
    private readonly init: AdapterInit,
    private readonly options: OneBotOptions = {},
  ) {
    this.service = new OneBotService({
      config: () => init.config.platforms.onebot,
      logger: init.logger,
      onEvent: options.onEvent,
      tuning: options.tuning,
    });
    this.outbound = new OneBotOutbound({
      apiOf: (selfId) => this.service.api(selfId),
      config: () => init.config.platforms.onebot,
      emojiRoot: init.dataDir,
    });
  }

  async attach(engine: AdapterEnginePorts, cluster?: AdapterClusterPorts): Promise<void> {
    const { logger, config } = this.init;
    const { service, options } = this;
    this.ledger = engine.ledger;
    const inbound = options.onEvent
      ? null
      : createOneBotInbound({
          manager: engine.manager,
          stores: engine.stores,
          config: engine.config,
          clock: engine.clock,
          logger,
          reopen: engine.reopen,
          recordRequest: (data) => service.record("platform.request", data),
        });
    this.mapping = inbound;
    const handleHere: OneBotEventHandler = inbound
      ? (event, api) => inbound.onEvent(event, api)
      : (options.onEvent ?? (() => Promise.resolve()));
    if (inbound) service.setEventHandler(handleHere);
    const audience = new OneBotAudienceSettings(
      config.platforms.onebot,
      engine.settings,
      engine.clock,
      logger,
      engine.changes,
    );
    await audience.load();
    this.settings = audience;
    const side = options.cluster ?? cluster;
    if (side)
      this.relay = await OneBotCluster.start({
        ...side,
        service,
        handleHere,
        inbound: () => inbound?.counters() ?? null,
        actionTimeoutMs: () => config.platforms.onebot.actionTimeoutMs,
        logger,
      });
  }

  serve({ server, events }: AdapterServing): void {
    // On a cluster node the platform stream's owner writes its events.
    this.service.bindEvents(this.relay?.events(events) ?? events);
    // Only the OneBot paths: every other upgrade stays Socket.IO's (and Next's).
    this.service.attachReverse(server);
  }

  start(): void {
    this.service.startForward();
  }

  async status(): Promise<AdapterStatus> {
    return statusOf(await this.connections());
  }

  async connections(): Promise<PlatformConnection[]> {
    return this.relay ? this.relay.status() : this.service.status();
  }

  async inbound() {
    return this.relay ? this.relay.inbound() : (this.mapping?.counters() ?? null);
  }

  async requests() {
    if (!this.ledger) return null;
    return { policy: this.init.config.platforms.onebot.requests, recent: await recentRequests(this.ledger) };
  }

  owns(sessionId: string): boolean {
    return chatOfSessionId(sessionId) !== null;
  }

  audience(): OneBotAudienceSettings | null {
    return this.settings;
  }

  async close(reason: string): Promise<void> {
    await this.service.close(reason);
    this.outbound.close();
    // After the connections closed: their claims go at once, and other nodes take the forward URLs.
    await this.relay?.close();
  }
}

/** The OneBot platform as the server installs it (server/platforms/installed.ts). */
export const onebotPlatform: PlatformModule<OneBotOptions> = {
  platform: "onebot",
  label: "OneBot",
  routes: onebotRoutes,
  ownsSessionId: (sessionId) => chatOfSessionId(sessionId) !== null,
  // None when the config asks for no connection (neither reverse enabled nor forward URLs).
  create: (init, options) => (onebotConfigured(init.config.platforms.onebot) ? new OneBotAdapter(init, options) : null),
};

/** The OneBot connections of a running server's adapters (tests and benchmarks drive them); null when none. */
export function oneBotServiceOf(adapters: {
  find(platform: string): PlatformAdapter | undefined;
}): OneBotService | null {
  const adapter = adapters.find("onebot");
  return adapter instanceof OneBotAdapter ? adapter.service : null;
}

/** An account per bot (self id), open while one of its connections is; the adapter likewise over its accounts. */
function statusOf(connections: PlatformConnection[]): AdapterStatus {
  const accounts = new Map<string, AdapterStatus["accounts"][number]>();
  for (const row of connections) {
    const seen = accounts.get(row.selfId);
    const account = seen ?? { id: row.selfId, state: row.state };
    if (seen) account.state = stronger(seen.state, row.state);
    if (row.login?.nickname) account.name = row.login.nickname;
    if (row.lastError) account.lastError = row.lastError.message;
    accounts.set(row.selfId, account);
  }
  const list = [...accounts.values()];
  return {
    platform: "onebot",
    state: list.reduce<PlatformConnection["state"]>((state, a) => stronger(state, a.state), "closed"),
    accounts: list,
  };
}

const RANK = { closed: 0, connecting: 1, open: 2 } as const;

function stronger(a: PlatformConnection["state"], b: PlatformConnection["state"]): PlatformConnection["state"] {
  return RANK[a] >= RANK[b] ? a : b;
}

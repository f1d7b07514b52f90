// The OneBot adapter put together, in two steps because the engine sits between them: the connections
// and their outbound sink first (the engine delivers through them), then, once the engine exists, the
// inbound mapping and the audience operators change live.
import type { MaisakaConfig } from "../../../lib/config/schema";
import type { StateChanges } from "../../kernel/state-changes";
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { SettingStore } from "../../stores/types";
import { OneBotCluster } from "../../cluster/onebot";
import type { NodeMessenger, SessionDirectory } from "../../kernel/cluster";
import { OneBotAudienceSettings } from "./audience-settings";
import { createOneBotInbound, type OneBotInbound, type OneBotInboundDeps } from "./inbound";
import { OneBotOutbound } from "./outbound";
import { onebotConfigured, OneBotService, type OneBotEventHandler, type OneBotTuning } from "./service";

export interface OneBotPlatformOptions {
  /** Its platforms.onebot is read on every use: live changes apply. */
  config: MaisakaConfig;
  logger: Logger;
  /** Replaces the inbound mapping (AppServer.platforms.setEventHandler can set one later too). */
  onEvent?: OneBotEventHandler;
  tuning?: Partial<OneBotTuning>;
  /** Where the emoji library's files are (sent as images). */
  emojiRoot: string;
}

/** What the inbound mapping and the audience need of the engine. */
export interface OneBotEngineSide {
  manager: OneBotInboundDeps["manager"];
  stores: OneBotInboundDeps["stores"];
  /** Where the audience changed live is saved. */
  settings: SettingStore;
  config: () => MaisakaConfig;
  clock: Clock;
  /** Brings an archived session back when its chat speaks again. */
  reopen: (sessionId: string) => Promise<void>;
  /** Told of every audience change (a cluster's other nodes reload it). */
  changes?: StateChanges;
}

/** What a cluster node adds (absent: one process, every connection and session here). */
export interface OneBotClusterSide {
  nodeId: string;
  messenger: NodeMessenger;
  directory: SessionDirectory;
  redisUrl: string;
  /** The lease time (MAISAKA_LEASE_TTL_MS): the registry's claims lapse after it. */
  ttlMs: number;
}

/** The connections and their outbound sink, before the engine. */
export interface OneBotConnections {
  service: OneBotService;
  /** OneBot chats' messages go out through the connections of their bot account. */
  outbound: OneBotOutbound;
  /**
   * Once the engine exists: the inbound mapping and the saved audience, laid over the config before any
   * event; on a cluster node, the routing of actions and events between nodes too.
   */
  attach(engine: OneBotEngineSide, cluster?: OneBotClusterSide): Promise<OneBotPlatform>;
  /** No platform event arrives after it; sends still waiting for a rate slot fail. */
  close(reason: string): Promise<void>;
}

/** The OneBot adapter's parts: connections, outbound sink, inbound mapping (null when an option replaced it). */
export interface OneBotPlatform extends Omit<OneBotConnections, "attach"> {
  inbound: OneBotInbound | null;
  audience: OneBotAudienceSettings;
  /** The cluster routing (null on a single process). */
  cluster: OneBotCluster | null;
}

/** null when the config asks for no connection (neither reverse enabled nor forward URLs). */
export function createOneBotPlatform(opts: OneBotPlatformOptions): OneBotConnections | null {
  if (!onebotConfigured(opts.config.platforms.onebot)) return null;
  const { logger } = opts;
  const service = new OneBotService({
    config: () => opts.config.platforms.onebot,
    logger,
    onEvent: opts.onEvent,
    tuning: opts.tuning,
  });
  const outbound = new OneBotOutbound({
    apiOf: (selfId) => service.api(selfId),
    config: () => opts.config.platforms.onebot,
    emojiRoot: opts.emojiRoot,
  });
  let cluster: OneBotCluster | null = null;
  const close = async (reason: string): Promise<void> => {
    await service.close(reason);
    outbound.close();
    // After the connections closed: their claims go at once, and other nodes take the forward URLs.
    await cluster?.close();
  };
  const attach = async (engine: OneBotEngineSide, side?: OneBotClusterSide): Promise<OneBotPlatform> => {
    const inbound = opts.onEvent
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
    const handleHere: OneBotEventHandler = inbound
      ? (event, api) => inbound.onEvent(event, api)
      : (opts.onEvent ?? (() => Promise.resolve()));
    if (inbound) service.setEventHandler(handleHere);
    const audience = new OneBotAudienceSettings(
      opts.config.platforms.onebot,
      engine.settings,
      engine.clock,
      logger,
      engine.changes,
    );
    await audience.load();
    if (side)
      cluster = await OneBotCluster.start({
        ...side,
        service,
        handleHere,
        inbound: () => inbound?.counters() ?? null,
        actionTimeoutMs: () => opts.config.platforms.onebot.actionTimeoutMs,
        logger,
      });
    return { service, outbound, inbound, audience, cluster, close };
  };
  return { service, outbound, attach, close };
}

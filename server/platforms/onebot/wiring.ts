// The OneBot adapter put together, in two steps because the engine sits between them: the connections
// and their outbound sink first (the engine delivers through them), then, once the engine exists, the
// inbound mapping and the audience operators change live.
import type { MaisakaConfig } from "../../../lib/config/schema";
import type { StateChanges } from "../../cluster/shared-state";
import type { Clock, EngineLogger } from "../../engine";
import type { SettingStore } from "../../stores/types";
import { OneBotAudienceSettings } from "./audience-settings";
import { createOneBotInbound, type OneBotInbound, type OneBotInboundDeps } from "./inbound";
import { OneBotOutbound } from "./outbound";
import { onebotConfigured, OneBotService, type OneBotEventHandler, type OneBotTuning } from "./service";

export interface OneBotPlatformOptions {
  /** Its platforms.onebot is read on every use: live changes apply. */
  config: MaisakaConfig;
  logger: EngineLogger;
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

/** The connections and their outbound sink, before the engine. */
export interface OneBotConnections {
  service: OneBotService;
  /** OneBot chats' messages go out through the connections of their bot account. */
  outbound: OneBotOutbound;
  /** Once the engine exists: the inbound mapping and the saved audience, laid over the config before any event. */
  attach(engine: OneBotEngineSide): Promise<OneBotPlatform>;
  /** No platform event arrives after it; sends still waiting for a rate slot fail. */
  close(reason: string): Promise<void>;
}

/** The OneBot adapter's parts: connections, outbound sink, inbound mapping (null when an option replaced it). */
export interface OneBotPlatform extends Omit<OneBotConnections, "attach"> {
  inbound: OneBotInbound | null;
  audience: OneBotAudienceSettings;
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
  const close = async (reason: string): Promise<void> => {
    await service.close(reason);
    outbound.close();
  };
  const attach = async (engine: OneBotEngineSide): Promise<OneBotPlatform> => {
    const inbound = opts.onEvent
      ? null
      : createOneBotInbound({
          manager: engine.manager,
          stores: engine.stores,
          config: engine.config,
          clock: engine.clock,
          logger,
          reopen: engine.reopen,
        });
    if (inbound) service.setEventHandler((event, api) => inbound.onEvent(event, api));
    const audience = new OneBotAudienceSettings(
      opts.config.platforms.onebot,
      engine.settings,
      engine.clock,
      logger,
      engine.changes,
    );
    await audience.load();
    return { service, outbound, inbound, audience, close };
  };
  return { service, outbound, attach, close };
}

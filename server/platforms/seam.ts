// The platform seam: what a chat platform adapter implements so the server can run it without naming it
// (docs/platforms.md, "Adding a platform"). An adapter is made from the config before the engine (the
// engine delivers through its outbound sink), attached once the engine exists, handed the HTTP server
// before it listens, started after the sessions are restored and closed first at shutdown. Everything it
// needs of the rest of the server comes through the narrow ports below, never by importing another room.
import type { Server } from "node:http";
import type { z } from "zod";
import type { Actor } from "../../lib/api/accounts";
import type { MaisakaConfig } from "../../lib/config/schema";
import type { EventData } from "../../lib/events/schemas";
import type {
  AdapterStatus,
  AudienceChange,
  ChatAudience,
  ChatAudiencePatch,
  InboundCounters,
  PlatformConnection,
  PlatformName,
  PlatformRequests,
} from "../../lib/platforms/status";
import type { HeartflowManager, OutboundSink } from "../engine";
import type { Clock } from "../kernel/clock";
import type { NodeMessenger, SessionDirectory } from "../kernel/cluster";
import type { Logger } from "../kernel/logger";
import type { EventLedger } from "../monitor/ledger";
import type { MessageStore } from "../stores/messages";
import type { SessionStore } from "../stores/sessions";
import type { SettingStore } from "../stores/settings";

/** The platform events an adapter records (the platform stream, the Platforms page). */
export type PlatformEvent = "platform.connected" | "platform.disconnected" | "platform.request";

/** Where an adapter's platform events go (the engine's bus; on a cluster node, the stream owner's). */
export interface PlatformEventSink {
  emit<T extends PlatformEvent>(sessionId: string, type: T, data: EventData<T>): unknown;
}

/** What the inbound path into the engine offers an adapter. */
export interface AdapterEnginePorts {
  /** Messages in, recalls, and notes in a session's context. */
  manager: Pick<HeartflowManager, "registerMessage" | "recallMessage" | "noteContext">;
  stores: { sessions: SessionStore; messages: MessageStore };
  /** Where an adapter's live settings (its audience) are saved. */
  settings: SettingStore;
  /** The platform stream's recorded events (requests) are read from it. */
  ledger: EventLedger;
  config: () => MaisakaConfig;
  clock: Clock;
  /** Brings an archived session back when its chat speaks again. */
  reopen: (sessionId: string) => Promise<void>;
  /** Told of every saved change of its live settings (a cluster's other nodes reload them). */
  changes: SettingChanges;
}

/** The change notice of an adapter's live settings (the engine's state changes implement it). */
export interface SettingChanges {
  changed(kind: "audience"): void;
}

/** What a cluster node hands an adapter (absent: one process, every connection and session here). */
export interface AdapterClusterPorts {
  nodeId: string;
  messenger: Pick<NodeMessenger, "call" | "handle">;
  directory: SessionDirectory;
  /** The Redis the nodes share (an adapter's claims and published status live there). */
  redisUrl: string;
  /** The lease time (MAISAKA_LEASE_TTL_MS): an adapter's claims lapse after it. */
  ttlMs: number;
}

/** The HTTP side an adapter is handed before the server listens. */
export interface AdapterServing {
  server: Server;
  /** Where its platform events are written. */
  events: PlatformEventSink;
}

/** Which chats an adapter serves, changed live (saved, audited, reloaded on the other nodes). */
export interface AdapterAudience {
  current(): ChatAudience;
  change(patch: ChatAudiencePatch): Promise<AudienceChange>;
  /** Read again after another node changed it. */
  reload(): Promise<void>;
}

/** A chat platform adapter (one per platform; plugin-provided gateways implement it too). */
export interface PlatformAdapter {
  readonly platform: PlatformName;
  /** Once the engine exists: the inbound mapping, saved settings and, on a cluster node, the relay. */
  attach(engine: AdapterEnginePorts, cluster?: AdapterClusterPorts): Promise<void>;
  /** Before the server listens: its upgrade paths on the HTTP server and its event sink. */
  serve(serving: AdapterServing): void;
  /** After the sessions are restored: outgoing connections start (inbound messages meet them as they were). */
  start(): void;
  /** Its accounts and their state: the `adapters[]` entry of GET /api/platforms. */
  status(): Promise<AdapterStatus>;
  /** Its connections, as GET /api/platforms lists them (a cluster node: every node's). */
  connections(): Promise<PlatformConnection[]>;
  /** The inbound mapping's counters (null when none runs). */
  inbound(): Promise<InboundCounters | null>;
  /** The request policy and the newest friend requests / invitations (null when the platform has none). */
  requests(): Promise<PlatformRequests | null>;
  /** Whether a session is a chat of this adapter: its replies go out through `outbound`. */
  owns(sessionId: string): boolean;
  /** The outbound send of the engine's replies to its chats. */
  readonly outbound: OutboundSink;
  /** Its audience settings, once attached (null when it has none or is not attached yet). */
  audience(): AdapterAudience | null;
  /** No platform event arrives after it; sends still waiting fail. */
  close(reason: string): Promise<void>;
}

/** A failure an adapter's route answers with (the HTTP layer turns it into its status and message). */
export class AdapterRouteError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What an adapter's own HTTP route reaches: its adapter (absent when not configured) and the audit trail. */
export interface AdapterRoutePorts {
  adapter: PlatformAdapter | undefined;
  audit: {
    record(entry: {
      actor: Actor;
      action: string;
      target: string;
      before?: unknown;
      after?: unknown;
      reason?: string;
    }): Promise<unknown>;
  };
}

/** An HTTP route an adapter contributes (served under /api/platforms/<platform>/…, listed in docs/api.md). */
export interface AdapterRoute<B = unknown, R = unknown> {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  body?: z.ZodType<B>;
  response?: z.ZodType<R>;
  handle(input: { body: B; actor: Actor }, ports: AdapterRoutePorts): Promise<{ status?: number; body: R }>;
}

/** What every adapter is made from (before the engine). */
export interface AdapterInit {
  /** Read on every use: live changes apply. */
  config: MaisakaConfig;
  logger: Logger;
  /** The data folder (the emoji library's files are sent from it). */
  dataDir: string;
}

/** An installed platform: its routes (static, so the route table is known before start) and its factory. */
export interface PlatformModule<Options> {
  readonly platform: PlatformName;
  readonly routes: readonly AdapterRoute[];
  /** Whether a session id is a chat of this platform, running or not (a send to it fails while it is down). */
  ownsSessionId(sessionId: string): boolean;
  /** Its name in messages ("the <label> adapter is not running"). */
  readonly label: string;
  /** null when the config asks for no connection of this platform. */
  create(init: AdapterInit, options: Options | undefined): PlatformAdapter | null;
}

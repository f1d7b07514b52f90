// Everything the engine gets from outside. The composition root (server/composition.ts, the CLI, tests)
// builds this; the engine never constructs its own clock, model, stores or event sink.
import type { MaisakaConfig } from "../../lib/config/schema";
import type { EventData, EventType, MonitorEvent } from "../../lib/events/schemas";
import type { ModelClient } from "../llm/model-client";
import type { JargonStore } from "../stores/jargon";
import type { LearnedStore } from "../stores/learned";
import type { MemoryStore } from "../stores/memories";
import type { MessageStore } from "../stores/messages";
import type { PersonStore } from "../stores/persons";
import type { SessionRecord, SessionStore } from "../stores/sessions";
import type { ToolRecordStore } from "../stores/tool-records";
import type { BuiltinToolStores } from "../tools/builtin/host";
import type { ToolProvider } from "../tools/provider";
import type { ToolExecutionResult, ToolInvocation, ToolSpec } from "../../lib/tools/schemas";
import type { Clock } from "../kernel/clock";
import type { Logger } from "../kernel/logger";
import type { HookRunner } from "./hooks";

/** Where the engine's monitor events go (the monitor bus, in the server). */
export interface EventSink {
  emit<T extends EventType>(sessionId: string, type: T, data: EventData<T>): MonitorEvent;
  /** Last assigned seq of a session (0 when none). */
  seqOf(sessionId: string): number;
  /**
   * Resolves once the session's events up to `seq` are in the ledger; rejects when this process may not
   * write the session any more (a cluster node that lost its lease).
   */
  whenDurable(sessionId: string, seq: number): Promise<void>;
}

/** Reads a session's written events (the event ledger, in the server). */
export interface EventReader {
  /** Up to `limit` events of the session with seq above `afterSeq`, in seq order. */
  read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]>;
}

/** A bot message on its way to the chat platform of its session. */
export interface OutboundMessage {
  kind: "text" | "emoji";
  /** The text (kind text), or the emoji's description (kind emoji). Never interpreted as markup. */
  text: string;
  /** The chat message answered (a quote on the platform), or null. */
  replyTo: string | null;
  /** The person answered, whom the platform may also mention (OneBot: platforms.onebot.atOnReply); null for none. */
  atUserId: string | null;
  /** kind emoji: the emoji library's file (path as the emoji store holds it). */
  emojiFile?: string;
}

export type DeliveryResult =
  /** platformMessageId: the id the platform gave the message (replies to it name it), null when none. */
  { delivered: true; platformMessageId: string | null } | { delivered: false; error: string };

/**
 * Where the bot's messages go (the platform adapters, in the server). Sessions of no platform
 * (the API, the dashboard) have nowhere to deliver: the sink answers delivered with no id.
 */
export interface OutboundSink {
  deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult>;
}

/** The sink of an engine with no platforms (the CLI, most tests): every message stays local. */
export const localOutbound: OutboundSink = {
  deliver: () => Promise.resolve({ delivered: true, platformMessageId: null }),
};

/**
 * The stores the engine calls, method by method: a session's records (sessions, messages, tool
 * records), what learning writes, and what the builtin tools read through the session. Accounts,
 * audit, settings, usage, toggles, model calls and the dashboard's list pages and versioned edits are
 * the server's: they are not part of the engine's port.
 */
export type EngineStores = BuiltinToolStores & {
  sessions: Pick<SessionStore, "upsert" | "get" | "list" | "touch" | "saveSnapshot" | "loadSnapshot" | "archivedAt">;
  messages: Pick<MessageStore, "save" | "get" | "listInboundAfter" | "markRecalled" | "recalledAmong">;
  toolRecords: Pick<ToolRecordStore, "record">;
  learned: Pick<LearnedStore, "record">;
  jargon: Pick<JargonStore, "findInScope" | "upsert">;
  memories: Pick<MemoryStore, "add">;
  persons: Pick<PersonStore, "find" | "upsert">;
};

export interface ToggleView {
  isEnabled(toolName: string, sessionId: string | undefined): boolean;
}

export interface EngineDeps {
  config: MaisakaConfig;
  clock: Clock;
  model: ModelClient;
  stores: EngineStores;
  events: EventSink;
  /** Read on restore, to reconcile a snapshot with the events written after it (recovery.ts). */
  ledger: EventReader;
  /** The plugins' hooks (the server's HookRegistry; a re-run wraps it). */
  hooks: HookRunner;
  /** Shared non-builtin providers (plugin runtime, MCP), registered after the builtin one. */
  providers: () => ToolProvider[];
  toggles: ToggleView;
  logger: Logger;
  /** Where sent messages are delivered (absent: localOutbound). */
  outbound?: OutboundSink;
  /**
   * The version of the settings changed live (server/settings; absent: 0). A turn pins it with the
   * config it starts with, and what the model saw names it.
   */
  settingsVersion?: () => number;
  /** Tool calls answered elsewhere first (absent: every call goes to its provider). */
  toolAnswers?: ToolAnswerSource;
  /** False: the session learns nothing (a re-run must not write the bot's data); absent: true. */
  learns?: boolean;
}

/**
 * Answers a planner's tool call in place of its provider (a re-run answers from the recording);
 * null: the provider runs it.
 */
export interface ToolAnswerSource {
  answer(invocation: ToolInvocation, spec: ToolSpec | null): Promise<ToolExecutionResult> | null;
}

// What the transport hands every OneBot event to, in order: message events become chat messages of
// their group's or peer's session (through HeartflowManager.registerMessage, durable like the HTTP
// path); recall notices mark messages recalled; a poke of the bot counts as an @; members joining or
// leaving become a short note; friend requests and group invitations go by the operator's policy
// (requests.ts). Anything malformed or unexpected is counted and dropped, never thrown.
import type { MaisakaConfig } from "../../../lib/config/schema";
import type { PlatformRequestData } from "../../../lib/events/schemas";
import {
  onebotMessageEventSchema,
  onebotNoticeEventSchema,
  onebotRequestEventSchema,
  type OneBotEventFrame,
  type OneBotMessageEvent,
  type OneBotNoticeEvent,
} from "../../../lib/platforms/onebot";
import { SessionArchivedError, type HeartflowManager } from "../../engine";
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { ChatMessageRecord, MessageStore } from "../../stores/messages";
import type { SessionRecord, SessionStore } from "../../stores/sessions";
import type { InboundCounters } from "../../../lib/platforms/status";
import type { OneBotApi } from "./api";
import { audienceOf } from "./audience";
import { OneBotChatDirectory } from "./chat-directory";
import { contentOfSegments, segmentsOf, wireId, type Locale } from "./segments";
import { chatOfMessage, chatOfNotice } from "./event-session";
import { handleRequest } from "./requests";
import { ONEBOT_SESSION_PLATFORM, sessionIdOf, type OneBotChat } from "./session-ids";

export interface OneBotInboundDeps {
  manager: Pick<HeartflowManager, "registerMessage" | "recallMessage" | "noteContext">;
  stores: { sessions: SessionStore; messages: MessageStore };
  /** Read on every event: allow/deny lists, the private switch and the locale apply as they change. */
  config: () => MaisakaConfig;
  clock: Clock;
  logger: Logger;
  /** How many recent message ids per process are remembered for dedupe before the store is asked (default 10 000). */
  recentIds?: number;
  /** Session name cache lifetime (default 10 min). */
  nameTtlMs?: number;
  /** How soon a failed name lookup is tried again (default 1 min). */
  nameRetryMs?: number;
  /** Brings an archived session back when its chat speaks again (absent: the message is refused). */
  reopen?: (sessionId: string) => Promise<void>;
  /** Records a friend request or group invitation for the operator (the platform stream's platform.request). */
  recordRequest?: (data: PlatformRequestData) => void;
}

export interface OneBotInbound {
  /** Handles one event; resolves once a message is durable. Never rejects. */
  onEvent(event: OneBotEventFrame, api: OneBotApi): Promise<void>;
  counters(): InboundCounters;
}

/** The longest one lookup (a quote's get_msg, a forward, a name) may hold an event up. */
const LOOKUP_TIMEOUT_CAP_MS = 5_000;
const REMEMBERED_NAMES = 5_000;

const NOTES = {
  "zh-CN": {
    group: (id: string) => `群 ${id}`,
    pokedMe: "[戳了戳你]",
    joined: (name: string) => `[新成员 ${name} 加入了群聊]`,
    left: (name: string) => `[${name} 退出了群聊]`,
    kicked: (name: string) => `[${name} 被移出了群聊]`,
  },
  en: {
    group: (id: string) => `Group ${id}`,
    pokedMe: "[poked you]",
    joined: (name: string) => `[${name} joined the group]`,
    left: (name: string) => `[${name} left the group]`,
    kicked: (name: string) => `[${name} was removed from the group]`,
  },
} as const;

/** A Map kept to its newest `cap` entries. */
class Recent<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly cap: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.cap) this.map.delete(this.map.keys().next().value as string); // size > 0 here
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function createOneBotInbound(deps: OneBotInboundDeps): OneBotInbound {
  const counters: InboundCounters = {
    ingested: 0,
    notes: 0,
    duplicates: 0,
    own: 0,
    denied: 0,
    recalls: 0,
    requests: 0,
    ignored: 0,
    malformed: 0,
    failed: 0,
  };
  const onebot = () => deps.config().platforms.onebot;
  const locale = (): Locale => deps.config().bot.locale;
  const lookupTimeoutMs = () => Math.min(onebot().actionTimeoutMs, LOOKUP_TIMEOUT_CAP_MS);
  const directory = new OneBotChatDirectory({
    sessions: deps.stores.sessions,
    clock: deps.clock,
    logger: deps.logger,
    ttlMs: deps.nameTtlMs,
    retryMs: deps.nameRetryMs,
    lookupTimeoutMs,
  });
  /** "<session>#<message id>" of messages taken (or being taken) by this process. */
  const taken = new Recent<true>(deps.recentIds ?? 10_000);
  /** "<session>#<user id>" → the name the user last spoke under (for pokes and member notes). */
  const names = new Recent<string>(REMEMBERED_NAMES);

  const serves = (chat: OneBotChat) => {
    if (audienceOf(onebot(), chat) === "serve") return true;
    counters.denied++;
    return false;
  };

  /**
   * Registers a message once: a repeat of an id taken by this process, or already in the store (taken
   * before a restart), is dropped. The id is claimed before any wait, so concurrent repeats drop too.
   */
  async function ingestOnce(
    session: SessionRecord,
    messageId: string,
    build: () => Promise<ChatMessageRecord>,
  ): Promise<void> {
    const key = `${session.id}#${messageId}`;
    if (taken.has(key)) {
      counters.duplicates++;
      return;
    }
    taken.set(key, true);
    try {
      if (await deps.stores.messages.get(session.id, messageId)) {
        counters.duplicates++;
        return;
      }
      const message = await build();
      try {
        await deps.manager.registerMessage(session, message);
      } catch (e) {
        if (!(e instanceof SessionArchivedError) || !deps.reopen) throw e;
        await deps.reopen(session.id);
        await deps.manager.registerMessage(session, message);
      }
      counters.ingested++;
    } catch (e) {
      // Not taken: a redelivery may try again.
      taken.delete(key);
      throw e;
    }
  }

  async function onMessage(event: OneBotMessageEvent, api: OneBotApi): Promise<void> {
    const selfId = event.self_id;
    if (event.post_type === "message_sent" || event.user_id === selfId) {
      counters.own++;
      return;
    }
    const chat = chatOfMessage(event);
    if (!chat) {
      counters.malformed++;
      deps.logger.warn(`[onebot] group message ${event.message_id} without group_id dropped`);
      return;
    }
    if (!serves(chat)) return;
    const sender = senderOf(event);
    const fallbackName = chat.kind === "group" ? NOTES[locale()].group(chat.peerId) : sender.userName;
    const session = await directory.sessionOf(chat, api, fallbackName);
    const messageId = event.message_id;
    names.set(`${session.id}#${sender.userId}`, sender.groupCard || sender.userName);
    await ingestOnce(session, messageId, async () => {
      const content = await contentOfSegments(segmentsOf(event.message), {
        selfId,
        sessionId: session.id,
        api,
        messages: deps.stores.messages,
        locale: locale(),
        logger: deps.logger,
        lookupTimeoutMs: lookupTimeoutMs(),
        nameOf: (userId) => names.get(`${session.id}#${userId}`),
      });
      return {
        sessionId: session.id,
        messageId,
        direction: "inbound",
        ...sender,
        text: content.text,
        ...(content.atBot ? { atBot: true } : {}),
        ...(content.mentionsBot ? { mentionsBot: true } : {}),
        replyTo: content.replyTo,
        ...(content.images.length ? { images: content.images } : {}),
        ...(content.forward ? { forward: content.forward } : {}),
        platform: ONEBOT_SESSION_PLATFORM,
        ts: deps.clock.now(),
      };
    });
  }

  async function onNotice(event: OneBotNoticeEvent, api: OneBotApi): Promise<void> {
    const selfId = event.self_id;
    const { notice_type: type, group_id: groupId, user_id: userId, message_id: messageId } = event;
    const chat = chatOfNotice(event);
    if ((type === "group_recall" || type === "friend_recall") && chat && messageId) {
      if (await deps.manager.recallMessage(sessionIdOf(chat), messageId)) counters.recalls++;
      return;
    }
    if (
      type === "notify" &&
      event.sub_type === "poke" &&
      chat &&
      userId &&
      event.target_id === selfId &&
      userId !== selfId
    ) {
      if (!serves(chat)) return;
      const notes = NOTES[locale()];
      const session = await directory.sessionOf(chat, api, groupId ? notes.group(groupId) : userId);
      const userName = names.get(`${session.id}#${userId}`) ?? (await nicknameOf(api, userId)) ?? userId;
      // A poke of the bot addresses it like an @: it forces the gate the same way.
      const id = `poke:${event.time}:${userId}`;
      await ingestOnce(session, id, () =>
        Promise.resolve(note(session, id, userId, userName, notes.pokedMe, { atBot: true, mentionsBot: true })),
      );
      return;
    }
    if ((type === "group_increase" || type === "group_decrease") && groupId && userId) {
      if (userId === selfId) {
        // The bot itself joined or left: its session starts (or stays) with the chat's own messages.
        deps.logger.info(`[onebot] ${selfId} ${type === "group_increase" ? "joined" : "left"} group ${groupId}`);
        counters.ignored++;
        return;
      }
      if (!chat || !serves(chat)) return;
      const notes = NOTES[locale()];
      const session = await directory.sessionOf(chat, api, notes.group(groupId));
      const name = names.get(`${session.id}#${userId}`) ?? (await nicknameOf(api, userId)) ?? userId;
      const text =
        type === "group_increase"
          ? notes.joined(name)
          : event.sub_type === "kick"
            ? notes.kicked(name)
            : notes.left(name);
      // A context note, not a chat message: it starts no turn, so a busy group's joins never make the bot speak.
      const key = `${session.id}#member:${type}:${event.time}:${userId}`;
      if (taken.has(key)) {
        counters.duplicates++;
        return;
      }
      taken.set(key, true);
      await deps.manager.noteContext(session, text);
      counters.notes++;
      return;
    }
    counters.ignored++;
  }

  function note(
    session: SessionRecord,
    messageId: string,
    userId: string,
    userName: string,
    text: string,
    flags: Pick<ChatMessageRecord, "atBot" | "mentionsBot">,
  ): ChatMessageRecord {
    return {
      sessionId: session.id,
      messageId,
      direction: "inbound",
      userId,
      userName,
      text,
      ...flags,
      replyTo: null,
      platform: ONEBOT_SESSION_PLATFORM,
      ts: deps.clock.now(),
    };
  }

  async function nicknameOf(api: OneBotApi, userId: string): Promise<string | null> {
    try {
      const data = await api.call("get_stranger_info", { user_id: wireId(userId) }, { timeoutMs: lookupTimeoutMs() });
      const nickname = data && typeof data === "object" ? (data as { nickname?: unknown }).nickname : undefined;
      return typeof nickname === "string" && nickname.trim() ? nickname.trim() : null;
    } catch (e) {
      deps.logger.warn(`[onebot] get_stranger_info ${userId} failed: ${errorText(e)}`);
      return null;
    }
  }

  return {
    async onEvent(event, api) {
      try {
        if (event.post_type === "message" || event.post_type === "message_sent") {
          const parsed = onebotMessageEventSchema.safeParse(event);
          if (!parsed.success) return malformed(event, parsed.error.message);
          await onMessage(parsed.data, api);
        } else if (event.post_type === "notice") {
          const parsed = onebotNoticeEventSchema.safeParse(event);
          if (!parsed.success) return malformed(event, parsed.error.message);
          await onNotice(parsed.data, api);
        } else if (event.post_type === "request") {
          const parsed = onebotRequestEventSchema.safeParse(event);
          if (!parsed.success) return malformed(event, parsed.error.message);
          counters.requests++;
          await handleRequest(parsed.data, api, { config: onebot, record: (data) => deps.recordRequest?.(data) });
        } else {
          // meta_event: the transport keeps health from it; unknown types: not ours.
          counters.ignored++;
        }
      } catch (e) {
        counters.failed++;
        deps.logger.error(`[onebot] ${event.post_type} event of ${event.self_id} failed: ${errorText(e)}`);
      }
    },
    counters: () => ({ ...counters }),
  };

  function malformed(event: OneBotEventFrame, why: string): void {
    counters.malformed++;
    deps.logger.warn(`[onebot] malformed ${event.post_type} event of ${event.self_id} dropped: ${why.slice(0, 300)}`);
  }
}

/** Who sent a message: card → groupCard, nickname → userName; anonymous senders by their anonymous name. */
function senderOf(event: OneBotMessageEvent): Pick<ChatMessageRecord, "userId" | "userName" | "groupCard"> {
  const anonymous = event.anonymous;
  if (event.sub_type === "anonymous" && anonymous && typeof anonymous === "object") {
    const { id, name } = anonymous as { id?: unknown; name?: unknown };
    const anonId = typeof id === "number" || typeof id === "string" ? String(id) : event.user_id;
    return { userId: `anonymous:${anonId}`, userName: typeof name === "string" && name ? name : anonId };
  }
  const card = event.sender?.card?.trim();
  return {
    userId: event.user_id,
    userName: event.sender?.nickname?.trim() || event.user_id,
    ...(card ? { groupCard: card } : {}),
  };
}

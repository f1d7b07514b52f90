// Sessions of OneBot chats: one per group and per private peer of each bot account, created on the
// chat's first event (named from the event) and renamed from get_group_info / get_stranger_info. Names are cached for a while
// and refreshed in the background (a renamed group renames its session); a failed lookup names the
// chat from what the event tells and is retried sooner.
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { SessionRecord, SessionStore } from "../../stores/sessions";
import type { OneBotApi } from "./api";
import { ONEBOT_SESSION_PLATFORM, sessionIdOf, type OneBotChat } from "./session-ids";
import { wireId } from "./segments";

export interface ChatDirectoryOptions {
  sessions: SessionStore;
  clock: Clock;
  logger: Logger;
  /** How long a looked-up name is trusted before it is looked up again (default 10 min). */
  ttlMs?: number;
  /** After a failed lookup, how soon it is tried again (default 1 min). */
  retryMs?: number;
  /** How long one lookup may take (read on each lookup: config may change). */
  lookupTimeoutMs: () => number;
}

interface Known {
  session: SessionRecord;
  nextCheckAt: number;
  refreshing: boolean;
}

function nameFrom(data: unknown, key: "group_name" | "nickname"): string | null {
  if (!data || typeof data !== "object") return null;
  const value = (data as Record<string, unknown>)[key];
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

export class OneBotChatDirectory {
  private readonly known = new Map<string, Known>();
  private readonly creating = new Map<string, Promise<SessionRecord>>();
  private readonly ttlMs: number;
  private readonly retryMs: number;

  constructor(private readonly opts: ChatDirectoryOptions) {
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
    this.retryMs = opts.retryMs ?? 60_000;
  }

  /**
   * The chat's session, created (and stored) on first use. `fallbackName` names it when the lookup
   * fails (e.g. "群 <id>", or the private peer's nickname from the event).
   */
  async sessionOf(chat: OneBotChat, api: OneBotApi, fallbackName: string): Promise<SessionRecord> {
    const id = sessionIdOf(chat);
    const known = this.known.get(id);
    if (known) {
      if (!known.refreshing && this.opts.clock.now() >= known.nextCheckAt) this.refresh(chat, api, known);
      return known.session;
    }
    const pending = this.creating.get(id);
    if (pending) return pending;
    const creation = this.create(chat, api, fallbackName).finally(() => this.creating.delete(id));
    this.creating.set(id, creation);
    return creation;
  }

  private async create(chat: OneBotChat, api: OneBotApi, fallbackName: string): Promise<SessionRecord> {
    const { sessions, clock } = this.opts;
    const id = sessionIdOf(chat);
    const stored = await sessions.get(id);
    if (stored) {
      // Known from before a restart: used as stored, its name checked in the background.
      const known: Known = { session: stored, nextCheckAt: clock.now(), refreshing: false };
      this.known.set(id, known);
      this.refresh(chat, api, known);
      return stored;
    }
    // Named from the event first, looked up in the background: the chat's first message never waits
    // for a round trip to the implementation (at 50 new groups at once those lookups queued up).
    const now = clock.now();
    const session: SessionRecord = {
      id,
      name: fallbackName,
      isGroupChat: chat.kind === "group",
      platform: ONEBOT_SESSION_PLATFORM,
      groupId: chat.kind === "group" ? chat.peerId : null,
      userId: chat.kind === "private" ? chat.peerId : null,
      createdAt: now,
      lastActiveAt: now,
    };
    await sessions.upsert(session);
    const known: Known = { session, nextCheckAt: now, refreshing: false };
    this.known.set(id, known);
    this.refresh(chat, api, known);
    return session;
  }

  /** Looks the name up again without holding the event up; renames the stored session when it changed. */
  private refresh(chat: OneBotChat, api: OneBotApi, known: Known): void {
    known.refreshing = true;
    void (async () => {
      const name = await this.lookup(chat, api);
      known.nextCheckAt = this.opts.clock.now() + (name ? this.ttlMs : this.retryMs);
      if (!name || name === known.session.name) return;
      const current = (await this.opts.sessions.get(known.session.id)) ?? known.session;
      const renamed = { ...current, name };
      await this.opts.sessions.upsert(renamed);
      known.session = renamed;
      this.opts.logger.info(`[onebot] ${renamed.id} renamed to ${name}`);
    })()
      .catch((e: unknown) => {
        this.opts.logger.warn(
          `[onebot] renaming ${known.session.id} failed: ${e instanceof Error ? e.message : String(e)}`,
        );
      })
      .finally(() => {
        known.refreshing = false;
      });
  }

  /** The chat's name on the platform; null when the lookup failed or gave none. */
  private async lookup(chat: OneBotChat, api: OneBotApi): Promise<string | null> {
    const timeoutMs = this.opts.lookupTimeoutMs();
    try {
      if (chat.kind === "group") {
        const data = await api.call("get_group_info", { group_id: wireId(chat.peerId) }, { timeoutMs });
        return nameFrom(data, "group_name");
      }
      const data = await api.call("get_stranger_info", { user_id: wireId(chat.peerId) }, { timeoutMs });
      return nameFrom(data, "nickname");
    } catch (e) {
      this.opts.logger.warn(
        `[onebot] naming ${sessionIdOf(chat)} failed: ${e instanceof Error ? e.message : String(e)}`,
      );
      return null;
    }
  }
}

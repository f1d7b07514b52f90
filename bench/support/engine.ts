// An engine for the measures: config with turns back to back, a silent logger, session and message
// records, and a way to await the end of a session's turn.
import type { MaisakaConfig } from "../../lib/config/schema";
import type { MonitorEvent } from "../../lib/events/schemas";
import { parseConfig } from "../../server/config/load";
import type { Logger } from "../../server/kernel/logger";
import type { MonitorBus } from "../../server/monitor/bus";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { SessionRecord } from "../../server/stores/sessions";

/** Nothing from the shell's environment (a model endpoint, keys) reaches the measured server. */
export const benchEnv: NodeJS.ProcessEnv = { NODE_ENV: "production" };

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (m) => console.error(m),
};

/** No debounce, no gate cooldown: the measures run turns back to back. */
export function benchConfig(chat: Record<string, unknown> = {}): MaisakaConfig {
  return parseConfig({ chat: { messageDebounceSeconds: 0, timingGateCooldownSeconds: 0, ...chat } }, "bench");
}

export function sessionRecord(id: string): SessionRecord {
  const now = Date.now();
  return {
    id,
    name: id,
    isGroupChat: true,
    platform: "bench",
    groupId: `g-${id}`,
    userId: null,
    createdAt: now,
    lastActiveAt: now,
  };
}

export function chatMessage(sessionId: string, n: number): ChatMessageRecord {
  return {
    sessionId,
    messageId: `${sessionId}-m${n}`,
    direction: "inbound",
    userId: `u${n % 7}`,
    userName: `User${n % 7}`,
    text: `第 ${n} 条消息：今天大家都在聊些什么呢？`,
    ts: Date.now(),
  };
}

/**
 * Resolves `next(sessionId)` when that session's turn ends with `finish` (the scripted model's last
 * call of a turn); any other end of a turn is a broken measure and rejects.
 */
export class TurnWaiter {
  private readonly waiting = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  cycles = 0;

  constructor(bus: MonitorBus) {
    bus.subscribe((e: MonitorEvent) => {
      if (e.type !== "cycle.end") return;
      this.cycles++;
      if (e.data.endReason === "tool_continue") return;
      const waiter = this.waiting.get(e.sessionId);
      this.waiting.delete(e.sessionId);
      if (e.data.endReason === "finish") waiter?.resolve();
      else waiter?.reject(new Error(`session ${e.sessionId}: turn ended with ${e.data.endReason}`));
    });
  }

  next(sessionId: string): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.set(sessionId, { resolve, reject }));
  }
}

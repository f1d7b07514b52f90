// When a message turn is due (docs/engine-rules.md#session-runtime): the message cache and its pending part, mention and @
// detection, the force-continue flag, the threshold with idle compensation and its one re-check,
// the debounce, the reply-latency samples the compensation uses, and the recovery marks of the
// pending messages (their store position, and which ones a cut turn already announced).
import type { ChatMessageRecord } from "../stores/messages";
import type { TimerHandle } from "../kernel/clock";
import type { EngineDeps } from "./deps";
import { decideTrigger, LatencyWindow, talkValueAt, triggerThreshold, type TriggerDecision } from "./triggers";

/** Bot messages and consumed messages beyond this many are dropped from the message cache. */
const MAX_RETAINED_CACHE = 200;

export interface SchedulerState {
  pending: ChatMessageRecord[];
  latency: { at: number; latencyMs: number }[];
  forceContinue: boolean;
  /** Highest message store position accepted (inbound messages after it are unknown here). */
  messageCursor: number;
  /** Pending message ids whose message.ingested is already in the ledger (recovery.ts). */
  announced: string[];
}

/** Why a message turn is or is not due now (`TriggerScheduler.evaluate`). */
export interface TriggerEvaluation {
  pending: number;
  threshold: number;
  /** What armed force-continue (null too when a turn a crash cut bypasses the threshold). */
  forcedBy: "at" | "mention" | null;
  decision: TriggerDecision;
}

export class TriggerScheduler {
  private cache: ChatMessageRecord[] = [];
  private processed = 0;
  private lastMessageAt = 0;
  private debounceNeeded = false;
  /** When the first message the debounce holds arrived (the ceiling counts from it). */
  private debounceSince = 0;
  private forceContinue = false;
  /** What armed force-continue, for operators; unknown (null) after a restore. */
  private forcedBy: "at" | "mention" | null = null;
  private recheck: TimerHandle | null = null;
  readonly latency = new LatencyWindow();
  /** When the current batch's oldest message arrived, for reply latency samples. */
  private batchOldestArrival: number | null = null;
  private messageCursor = 0;
  private announced = new Set<string>();

  constructor(
    private readonly deps: Pick<EngineDeps, "config" | "clock">,
    private readonly isGroupChat: boolean,
    /** Called when a re-check timer fires: the caller asks `due()` again. */
    private readonly onRecheck: () => void,
  ) {}

  /**
   * Caches a new message saved at store `position` (with mention detection) and arms force-continue
   * for an @ or a mention. False when it was taken already: handed over again (its first runtime
   * stopped while saving it) after this runtime's restore found it in the store.
   */
  accept(message: ChatMessageRecord, position: number): boolean {
    const now = this.deps.clock.now();
    this.messageCursor = Math.max(this.messageCursor, position);
    if (this.cache.some((m) => m.messageId === message.messageId)) return false;
    this.lastMessageAt = now;
    const mentioned = message.mentionsBot ?? this.detectMention(message.text);
    const chat = this.deps.config.chat;
    const forcedBy = message.atBot && chat.atBotReply ? "at" : mentioned && chat.mentionedBotReply ? "mention" : null;
    if (forcedBy) {
      this.forceContinue = true;
      this.forcedBy = forcedBy;
    }
    this.cache.push({ ...message, mentionsBot: mentioned, ts: message.ts || now });
    this.pruneCache();
    return true;
  }

  /** Messages came in during a run: the next collection waits for the chat to go quiet. */
  requireDebounce(): void {
    if (!this.debounceNeeded) this.debounceSince = this.deps.clock.now();
    this.debounceNeeded = true;
  }

  get lastMessageTime(): number {
    return this.lastMessageAt;
  }

  pending(): ChatMessageRecord[] {
    const seen = new Set<string>();
    const out: ChatMessageRecord[] = [];
    for (const m of this.cache.slice(this.processed)) {
      if (seen.has(m.messageId)) continue;
      seen.add(m.messageId);
      out.push(m);
    }
    return out;
  }

  /** Takes the pending messages (deduped by id) and starts the reply-latency clock. */
  collect(): ChatMessageRecord[] {
    const pending = this.pending();
    this.processed = this.cache.length;
    if (pending.length) this.batchOldestArrival = Math.min(...pending.map((m) => m.ts));
    return pending;
  }

  lastMessage(): ChatMessageRecord | null {
    return this.cache.length ? this.cache[this.cache.length - 1] : null;
  }

  /** Consumes the one-shot force-continue flag. */
  takeForceContinue(): boolean {
    const forced = this.forceContinue;
    this.forceContinue = false;
    this.forcedBy = null;
    return forced;
  }

  /**
   * Whether a message turn is due now (threshold, idle compensation or force). When compensation
   * may make it due later, arms one re-check.
   */
  due(): boolean {
    const { decision } = this.evaluate();
    if (decision.kind === "trigger") return true;
    if (decision.kind === "recheck" && !this.recheck) {
      this.recheck = this.deps.clock.setTimer(decision.afterMs, () => {
        this.recheck = null;
        this.onRecheck();
      });
    }
    return false;
  }

  /** The trigger rule applied now, without side effects (due() acts on it). */
  evaluate(): TriggerEvaluation {
    const pending = this.pending().length;
    const now = this.deps.clock.now();
    const chat = this.deps.config.chat;
    const threshold = triggerThreshold(talkValueAt(chat, this.isGroupChat, new Date(now)), chat.talkFrequencyAdjust);
    // A turn a crash cut (recovery.ts) was already triggered: it runs again whatever the threshold.
    const forced = pending > 0 && (this.forceContinue || this.announced.size > 0);
    const decision: TriggerDecision = forced
      ? { kind: "trigger" }
      : decideTrigger(pending, threshold, now - this.lastMessageAt, this.latency.average(now));
    return { pending, threshold, forcedBy: this.forceContinue ? this.forcedBy : null, decision };
  }

  /**
   * When the debounce of the next collection ends, or null when none is needed: messageDebounceSeconds
   * after the last message, but never later than messageDebounceMaxSeconds after the first one it
   * holds (a flood that never goes quiet would hold it, @-mentions included, for as long as it lasts).
   */
  debounceDeadline(): number | null {
    if (!this.debounceNeeded) return null;
    const chat = this.deps.config.chat;
    return Math.min(
      this.lastMessageAt + chat.messageDebounceSeconds * 1000,
      this.debounceSince + chat.messageDebounceMaxSeconds * 1000,
    );
  }

  get rechecking(): boolean {
    return this.recheck !== null;
  }

  cancelRecheck(): void {
    this.recheck?.cancel();
    this.recheck = null;
  }

  /** Waits until the debounce deadline (moved by each new message), if messages came in during a run. */
  async debounce(pause: (ms: number) => Promise<boolean>): Promise<void> {
    for (;;) {
      const deadline = this.debounceDeadline();
      if (deadline === null) return;
      const remaining = deadline - this.deps.clock.now();
      if (remaining <= 0 || !(await pause(remaining))) break;
    }
    this.debounceNeeded = false;
  }

  /** A text reply went out: one latency sample from the batch's oldest message. */
  replySent(now: number): void {
    if (this.batchOldestArrival === null) return;
    this.latency.add(now, now - this.batchOldestArrival);
    this.batchOldestArrival = null;
  }

  /** Mean reply latency of the window (for inspection and tests). */
  averageLatency(): number | null {
    return this.latency.average(this.deps.clock.now());
  }

  /** Forgets a message (recalled on its platform); true when it was still pending. */
  drop(messageId: string): boolean {
    let wasPending = false;
    const kept: ChatMessageRecord[] = [];
    let processed = this.processed;
    this.cache.forEach((m, i) => {
      if (m.messageId !== messageId) return void kept.push(m);
      if (i < this.processed) processed--;
      else wasPending = true;
    });
    this.cache = kept;
    this.processed = processed;
    this.announced.delete(messageId);
    return wasPending;
  }

  /** Consumes the mark of a message whose message.ingested is already in the ledger (recovered). */
  takeAnnounced(messageId: string): boolean {
    return this.announced.delete(messageId);
  }

  state(): SchedulerState {
    const pending = this.cache.slice(this.processed);
    return {
      pending,
      latency: this.latency.toJSON(),
      forceContinue: this.forceContinue,
      messageCursor: this.messageCursor,
      announced: pending.filter((m) => this.announced.has(m.messageId)).map((m) => m.messageId),
    };
  }

  /** Restores a recovered state before start. */
  restore(state: SchedulerState): void {
    this.cache = [...state.pending];
    this.forceContinue = state.forceContinue;
    for (const s of state.latency) this.latency.add(s.at, s.latencyMs);
    this.messageCursor = state.messageCursor;
    this.announced = new Set(state.announced);
    this.processed = 0;
    if (this.cache.length) this.lastMessageAt = this.cache[this.cache.length - 1].ts;
  }

  private detectMention(text: string): boolean {
    const bot = this.deps.config.bot;
    const lower = text.toLowerCase();
    return [bot.nickname, ...bot.aliases].some((name) => name && lower.includes(name.toLowerCase()));
  }

  private pruneCache(): void {
    const excess = this.processed - MAX_RETAINED_CACHE;
    if (excess > 0) {
      this.cache.splice(0, excess);
      this.processed -= excess;
    }
  }
}

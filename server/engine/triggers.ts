// Message-trigger arithmetic (docs/engine-rules.md#trigger-threshold): talk value, threshold and idle compensation.
// Pure functions so they are tested with plain numbers.
import type { ChatConfig } from "../../lib/config/schema";

/** talkValue for this chat kind at this local time; the last matching time-ranged rule wins. */
export function talkValueAt(chat: ChatConfig, isGroupChat: boolean, now: Date): number {
  let value = isGroupChat ? chat.talkValue : chat.privateTalkValue;
  const minutes = now.getHours() * 60 + now.getMinutes();
  for (const rule of chat.talkValueRules) {
    if (rule.chat && rule.chat !== (isGroupChat ? "group" : "private")) continue;
    const start = toMinutes(rule.start);
    const end = toMinutes(rule.end);
    const inside = start <= end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
    if (inside) value = rule.value;
  }
  return value;
}

function toMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h * 60 + m;
}

export function triggerThreshold(talkValue: number, frequencyAdjust: number): number {
  // docs/engine-rules.md#trigger-threshold: effectiveFrequency = max(0.01, talkValue * talkFrequencyAdjust).
  const effective = Math.max(0.01, talkValue * frequencyAdjust);
  return Math.max(1, Math.ceil(1 / Math.min(1, effective)));
}

export type TriggerDecision = { kind: "trigger" } | { kind: "recheck"; afterMs: number } | { kind: "none" };

/**
 * pending: distinct unprocessed messages; idleMs: since the last message; avgLatencyMs: mean reply
 * latency of the last 600 s, or null without samples (then no compensation).
 */
export function decideTrigger(
  pending: number,
  threshold: number,
  idleMs: number,
  avgLatencyMs: number | null,
): TriggerDecision {
  if (pending <= 0) return { kind: "none" };
  if (pending >= threshold) return { kind: "trigger" };
  if (avgLatencyMs === null || avgLatencyMs <= 0) return { kind: "none" };
  if (pending + idleMs / avgLatencyMs >= threshold) return { kind: "trigger" };
  return { kind: "recheck", afterMs: Math.max(0, (threshold - pending) * avgLatencyMs - idleMs) };
}

/** Reply-latency samples kept for idle compensation. */
export class LatencyWindow {
  private samples: { at: number; latencyMs: number }[] = [];

  constructor(private readonly windowMs = 600_000) {}

  add(at: number, latencyMs: number): void {
    this.samples.push({ at, latencyMs: Math.max(0, latencyMs) });
  }

  average(now: number): number | null {
    this.samples = this.samples.filter((s) => now - s.at <= this.windowMs);
    if (!this.samples.length) return null;
    return this.samples.reduce((sum, s) => sum + s.latencyMs, 0) / this.samples.length;
  }

  toJSON(): { at: number; latencyMs: number }[] {
    return this.samples;
  }

  static from(samples: { at: number; latencyMs: number }[], windowMs?: number): LatencyWindow {
    const w = new LatencyWindow(windowMs);
    w.samples = [...samples];
    return w;
  }
}

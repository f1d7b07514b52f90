// A session's timeline derived from its monitor events: messages, cycle cards, notices and the
// current stage. Events merge in any order and any number of times (ledger pages, live socket,
// resubscribe overlap): dedup is by seq, and the common case (new seqs at the end) is incremental so
// a 10,000-event session takes a few microseconds per live batch instead of a rebuild.
import type {
  EventData,
  MonitorEvent,
  PlannerFinalizedData,
  TimingGateResultData,
  ToolExecutionData,
} from "../events/schemas";

export type EventOf<T extends MonitorEvent["type"]> = Extract<MonitorEvent, { type: T }>;
export type PendingEvent = EventOf<"message.pending">;
/** A pending row is upgraded in place to its message.ingested when a turn takes the message. */
export type ChatEvent = EventOf<"message.ingested"> | EventOf<"message.sent"> | PendingEvent;
export type ProblemEvent = EventOf<"llm.retry"> | EventOf<"llm.error">;
export type PlatformNoticeEvent = EventOf<"platform.connected"> | EventOf<"platform.disconnected">;
export type NoticeEvent =
  | EventOf<"session.start">
  | EventOf<"session.stop">
  | EventOf<"tool.toggled">
  | EventOf<"message.send_failed">
  | EventOf<"operator.action">
  | PlatformNoticeEvent
  | ProblemEvent;

export interface CycleView {
  /** Unique within the timeline (cycleId, suffixed if the engine ever reuses an id). */
  key: string;
  cycleId: string;
  startSeq: number;
  lastSeq: number;
  startTs: number;
  lastTs: number;
  start: EventData<"cycle.start"> | null;
  gate: TimingGateResultData | null;
  interrupted: EventData<"planner.interrupted"> | null;
  tools: readonly ToolExecutionData[];
  finalized: PlannerFinalizedData | null;
  end: EventData<"cycle.end"> | null;
  problems: readonly ProblemEvent[];
  /** Messages the bot sent while this cycle ran (its visible replies). */
  sent: readonly EventOf<"message.sent">[];
}

export type TimelineItem =
  /**
   * recalled: a later message.recalled named it (it stays shown, struck through). waits: the
   * message.pending announcements of it in order, kept once a turn took it (why it waited); the
   * first one's time is the row's time.
   */
  | {
      kind: "message";
      key: string;
      seq: number;
      event: ChatEvent;
      recalled?: boolean;
      waits?: readonly PendingEvent[];
    }
  | { kind: "cycle"; key: string; seq: number; cycle: CycleView }
  | { kind: "notice"; key: string; seq: number; event: NoticeEvent };

/** An inclusive range of seqs known to exist (a later seq arrived) but not held yet. */
export type SeqGap = readonly [from: number, to: number];

export interface Timeline {
  sessionId: string;
  /** Every event held, ascending by seq, no duplicates. */
  events: readonly MonitorEvent[];
  /** Highest seq held (0 when empty). */
  lastSeq: number;
  items: readonly TimelineItem[];
  /** Item index of each chat message, by its messageId (recalls find their message). */
  messageIndex: ReadonlyMap<string, number>;
  /** Item index of each cycle key. */
  cycleIndex: ReadonlyMap<string, number>;
  /** Latest cycle key per engine cycleId. */
  cycleKeyById: ReadonlyMap<string, string>;
  stage: EventOf<"stage.status"> | null;
  /** The last few stages, newest last, for the stage panel. */
  recentStages: readonly EventOf<"stage.status">[];
  messageCount: number;
  cycleCount: number;
  gaps: readonly SeqGap[];
  /** When the armed wait ends (from the gate's wait decision), null when the session is not waiting. */
  waitDeadline: number | null;
  /** The latest announcement of a message no turn has taken since: why the bot is quiet now. */
  lastPending: PendingEvent | null;
}

/** What a timeline holds beside its events, items, lookups and gaps. */
export type TimelineState = Pick<
  Timeline,
  "stage" | "recentStages" | "messageCount" | "cycleCount" | "waitDeadline" | "lastPending"
>;

/** A timeline as it stood after some of its events: what the replay shows at its playhead. */
export type TimelineView = Pick<Timeline, "sessionId" | "lastSeq" | "items"> & TimelineState;

const RECENT_STAGES = 8;

export function emptyTimeline(sessionId: string): Timeline {
  return {
    sessionId,
    events: [],
    lastSeq: 0,
    items: [],
    messageIndex: new Map(),
    cycleIndex: new Map(),
    cycleKeyById: new Map(),
    stage: null,
    recentStages: [],
    messageCount: 0,
    cycleCount: 0,
    gaps: [],
    waitDeadline: null,
    lastPending: null,
  };
}

export function buildTimeline(sessionId: string, events: readonly MonitorEvent[]): Timeline {
  return applyEvents(emptyTimeline(sessionId), events);
}

/**
 * Merges events into a timeline and returns a new one (the input is not changed). Events of other
 * sessions and seqs already held are ignored; returns the same object when nothing was new.
 */
export function applyEvents(timeline: Timeline, incoming: readonly MonitorEvent[]): Timeline {
  const batch = normalizeBatch(timeline.sessionId, incoming);
  if (batch.length === 0) return timeline;

  const fillsGap = batch.some((e) => e.seq <= timeline.lastSeq && inGaps(timeline.gaps, e.seq));
  if (fillsGap) {
    // Rare (a missing range arrived late): rebuild from the merged, ordered events.
    const merged = mergeSorted(
      timeline.events,
      batch.filter((e) => e.seq > timeline.lastSeq || inGaps(timeline.gaps, e.seq)),
    );
    return applyFresh(emptyTimeline(timeline.sessionId), merged);
  }
  const fresh = batch.filter((e) => e.seq > timeline.lastSeq);
  return fresh.length ? applyFresh(timeline, fresh) : timeline;
}

/** The session's events sorted by seq with duplicates inside the batch dropped. */
function normalizeBatch(sessionId: string, incoming: readonly MonitorEvent[]): MonitorEvent[] {
  const own = incoming.filter((e) => e.sessionId === sessionId);
  let sorted = true;
  for (let i = 1; i < own.length; i++) if (own[i].seq <= own[i - 1].seq) sorted = false;
  if (sorted) return own;
  const bySeq = new Map<number, MonitorEvent>();
  for (const e of own) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function inGaps(gaps: readonly SeqGap[], seq: number): boolean {
  return gaps.some(([from, to]) => seq >= from && seq <= to);
}

function mergeSorted(a: readonly MonitorEvent[], b: readonly MonitorEvent[]): MonitorEvent[] {
  const out: MonitorEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i].seq <= b[j].seq) ? a[i++] : b[j++];
    if (out.length === 0 || out[out.length - 1].seq !== next.seq) out.push(next);
  }
  return out;
}

/** Applies events whose seqs are all above the timeline's lastSeq, ascending. */
function applyFresh(prev: Timeline, fresh: readonly MonitorEvent[]): Timeline {
  const draft = new Draft(prev);
  for (const event of fresh) draft.apply(event);
  return draft.finish();
}

/** A map copied on its first write: most live batches add no message and start no cycle. */
class CopyOnWrite<K, V> {
  private copy: Map<K, V> | null = null;
  constructor(private readonly base: ReadonlyMap<K, V>) {}
  get(key: K): V | undefined {
    return (this.copy ?? this.base).get(key);
  }
  has(key: K): boolean {
    return (this.copy ?? this.base).has(key);
  }
  set(key: K, value: V): void {
    (this.copy ??= new Map(this.base)).set(key, value);
  }
  result(): ReadonlyMap<K, V> {
    return this.copy ?? this.base;
  }
}

/** Copy-on-write working state for one batch: each collection is copied at most once per batch. */
class Draft {
  private readonly items: TimelineItem[];
  private readonly messageIndex: CopyOnWrite<string, number>;
  private readonly cycleIndex: CopyOnWrite<string, number>;
  private readonly cycleKeyById: CopyOnWrite<string, string>;
  private readonly events: MonitorEvent[];
  private readonly gaps: SeqGap[];
  private recentStages: EventOf<"stage.status">[];
  private stage: EventOf<"stage.status"> | null;
  private lastSeq: number;
  private messageCount: number;
  private cycleCount: number;
  private waitDeadline: number | null;
  private lastPending: PendingEvent | null;

  constructor(
    private readonly prev: Timeline,
    /** Told of every item written (slot = its index in items), the new ones and the replaced. */
    private readonly onItem?: (slot: number, item: TimelineItem) => void,
  ) {
    this.items = [...prev.items];
    this.messageIndex = new CopyOnWrite(prev.messageIndex);
    this.cycleIndex = new CopyOnWrite(prev.cycleIndex);
    this.cycleKeyById = new CopyOnWrite(prev.cycleKeyById);
    this.events = [...prev.events];
    this.gaps = [...prev.gaps];
    this.recentStages = [...prev.recentStages];
    this.stage = prev.stage;
    this.lastSeq = prev.lastSeq;
    this.messageCount = prev.messageCount;
    this.cycleCount = prev.cycleCount;
    this.waitDeadline = prev.waitDeadline;
    this.lastPending = prev.lastPending;
  }

  apply(event: MonitorEvent): void {
    if (event.seq > this.lastSeq + 1) this.gaps.push([this.lastSeq + 1, event.seq - 1]);
    this.lastSeq = event.seq;
    this.events.push(event);
    switch (event.type) {
      case "stage.status":
        if (event.data.agentState !== "wait") this.waitDeadline = null;
        this.stage = event;
        this.recentStages = [...this.recentStages.slice(-(RECENT_STAGES - 1)), event];
        return;
      case "message.sent": {
        const open = this.openCycle();
        if (open) this.updateCycle(open, event, (c) => ({ sent: [...c.sent, event] }));
        this.pushMessage(event);
        return;
      }
      case "message.pending":
      case "message.ingested": {
        this.lastPending = event.type === "message.pending" ? event : null;
        // A message is one row: announced again (its gate changed) or taken by a turn, the pending
        // row is updated in place and keeps every announcement (its wait history).
        const index = this.messageIndex.get(event.data.messageId);
        const item = index === undefined ? undefined : this.items[index];
        if (index !== undefined && item?.kind === "message" && item.event.type === "message.pending") {
          const waits = item.waits ?? [item.event];
          this.setItem(index, { ...item, event, waits: event.type === "message.pending" ? [...waits, event] : waits });
        } else if (event.type === "message.ingested" || index === undefined) {
          this.pushMessage(event);
        }
        return;
      }
      case "message.recalled": {
        const index = this.messageIndex.get(event.data.messageId);
        const item = index === undefined ? undefined : this.items[index];
        if (index !== undefined && item?.kind === "message") this.setItem(index, { ...item, recalled: true });
        return;
      }
      case "session.stop":
        // The runtime's pending messages wait for its next start, which announces them again.
        this.lastPending = null;
        this.pushNotice(event);
        return;
      case "session.start":
      case "tool.toggled":
      case "message.send_failed":
      case "operator.action":
      case "platform.connected":
      case "platform.disconnected":
        this.pushNotice(event);
        return;
      case "llm.retry":
      case "llm.error": {
        const open = this.openCycle();
        if (open) this.updateCycle(open, event, (c) => ({ problems: [...c.problems, event] }));
        else this.pushNotice(event);
        return;
      }
      case "cycle.start":
        this.startCycle(event.data.cycleId, event, event.data);
        return;
      case "timing_gate.result":
        if (event.data.waitSeconds !== undefined) this.waitDeadline = event.ts + event.data.waitSeconds * 1000;
        this.updateCycle(this.cycleFor(event.data.cycleId, event), event, () => ({ gate: event.data }));
        return;
      case "planner.interrupted":
        this.updateCycle(this.cycleFor(event.data.cycleId, event), event, () => ({ interrupted: event.data }));
        return;
      case "tool.execution":
        this.updateCycle(this.cycleFor(event.data.cycleId, event), event, (c) => ({
          tools: [...c.tools.filter((t) => t.toolCallId !== event.data.toolCallId), event.data],
        }));
        return;
      case "planner.finalized":
        this.updateCycle(this.cycleFor(event.data.cycleId, event), event, (c) => ({
          finalized: event.data,
          // The finalized payload is authoritative; keep streamed results it may lack.
          tools: event.data.tools.length >= c.tools.length ? event.data.tools : c.tools,
          gate: c.gate ?? event.data.timingGate?.result ?? null,
        }));
        return;
      case "cycle.end":
        this.updateCycle(this.cycleFor(event.data.cycleId, event), event, () => ({ end: event.data }));
        return;
    }
  }

  finish(): Timeline {
    return {
      sessionId: this.prev.sessionId,
      events: this.events,
      lastSeq: this.lastSeq,
      items: this.items,
      messageIndex: this.messageIndex.result(),
      cycleIndex: this.cycleIndex.result(),
      cycleKeyById: this.cycleKeyById.result(),
      stage: this.stage,
      recentStages: this.recentStages,
      messageCount: this.messageCount,
      cycleCount: this.cycleCount,
      gaps: this.gaps,
      waitDeadline: this.waitDeadline,
      lastPending: this.lastPending,
    };
  }

  state(): TimelineState {
    return {
      stage: this.stage,
      recentStages: this.recentStages,
      messageCount: this.messageCount,
      cycleCount: this.cycleCount,
      waitDeadline: this.waitDeadline,
      lastPending: this.lastPending,
    };
  }

  private setItem(index: number, item: TimelineItem): void {
    this.items[index] = item;
    this.onItem?.(index, item);
  }

  private pushItem(item: TimelineItem): void {
    this.onItem?.(this.items.length, item);
    this.items.push(item);
  }

  private pushNotice(event: NoticeEvent): void {
    this.pushItem({ kind: "notice", key: `n${event.seq}`, seq: event.seq, event });
  }

  private pushMessage(event: ChatEvent): void {
    this.messageCount++;
    this.messageIndex.set(event.data.messageId, this.items.length);
    const waits = event.type === "message.pending" ? { waits: [event] } : {};
    this.pushItem({ kind: "message", key: `m${event.seq}`, seq: event.seq, event, ...waits });
  }

  private startCycle(cycleId: string, event: MonitorEvent, start: EventData<"cycle.start"> | null): string {
    const key = this.cycleIndex.has(cycleId) ? `${cycleId}@${event.seq}` : cycleId;
    const cycle: CycleView = {
      key,
      cycleId,
      startSeq: event.seq,
      lastSeq: event.seq,
      startTs: event.ts,
      lastTs: event.ts,
      start,
      gate: null,
      interrupted: null,
      tools: [],
      finalized: null,
      end: null,
      problems: [],
      sent: [],
    };
    this.cycleIndex.set(key, this.items.length);
    this.cycleKeyById.set(cycleId, key);
    this.pushItem({ kind: "cycle", key, seq: event.seq, cycle });
    this.cycleCount++;
    return key;
  }

  /** The cycle an event belongs to; created on the spot when its cycle.start was never seen. */
  private cycleFor(cycleId: string, event: MonitorEvent): string {
    return this.cycleKeyById.get(cycleId) ?? this.startCycle(cycleId, event, null);
  }

  private openCycle(): string | null {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item.kind === "cycle") return item.cycle.end ? null : item.key;
    }
    return null;
  }

  private updateCycle(key: string, event: MonitorEvent, patch: (c: CycleView) => Partial<CycleView>): void {
    const index = this.cycleIndex.get(key);
    if (index === undefined) return;
    const item = this.items[index];
    if (item.kind !== "cycle") return;
    const cycle: CycleView = { ...item.cycle, ...patch(item.cycle), lastSeq: event.seq, lastTs: event.ts };
    this.setItem(index, { ...item, cycle });
  }
}

/**
 * A timeline built one event at a time and never handed out: each item it writes goes to `onItem`
 * (slot = the item's index), `state()` reads the rest. The replay cursor keeps every version of
 * every item this way instead of copies of the whole timeline.
 */
export class TimelineRecorder {
  private readonly draft: Draft;

  constructor(sessionId: string, onItem: (slot: number, item: TimelineItem) => void) {
    this.draft = new Draft(emptyTimeline(sessionId), onItem);
  }

  /** The session's next event: its seq above every one applied before (a timeline's events in order). */
  apply(event: MonitorEvent): void {
    this.draft.apply(event);
  }

  state(): TimelineState {
    return this.draft.state();
  }
}

/** Item indices of the cycle cards, in order (for j/k navigation and markers). */
export function cycleItemIndices(items: readonly TimelineItem[]): number[] {
  const out: number[] = [];
  items.forEach((item, i) => {
    if (item.kind === "cycle") out.push(i);
  });
  return out;
}

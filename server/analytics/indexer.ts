// Keeps the analytics tables current: every session's ledger folded from where its cursor stands.
// Events delivered by the bus are already in the ledger (durable first), so a delivery only marks its
// session; one loop reads the marked sessions' new events in pages and commits facts and cursor
// together. The same path catches up at start (events written while the server was down, or a new
// schema) and rebuilds from nothing.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { SessionDirectory } from "../kernel/cluster";
import type { EventLedger } from "../monitor/ledger";
import { emptyFoldState, foldEvent, type CycleFact, type SilenceFact } from "./fold";
import type { Cursor, FactStore } from "./fact-store";

/** Event types the fold looks at; a page of nothing else still advances the cursor. */
const FOLDED = new Set<MonitorEvent["type"]>([
  "cycle.start",
  "cycle.end",
  "timing_gate.result",
  "planner.interrupted",
  "tool.execution",
  "message.sent",
  "message.pending",
  "message.ingested",
  "session.stop",
]);

export interface AnalyticsIndexerOptions {
  store: FactStore;
  ledger: EventLedger;
  /** Where delivered events come from (the monitor bus). */
  events: { subscribe(listener: (event: MonitorEvent) => void): () => void };
  /** Events read per ledger page (default 1,000). */
  pageSize?: number;
  /**
   * A cluster node folds only the sessions it owns (SessionDirectory.ownsLocally), from the cursor the
   * previous owner left in the database; absent: every session (a single process).
   */
  owner?: Pick<SessionDirectory, "ownsLocally">;
  onError?: (error: unknown) => void;
}

export class AnalyticsIndexer {
  private cursors = new Map<string, Cursor>();
  private readonly dirty = new Set<string>();
  private running: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  private holding = false;

  constructor(private readonly opts: AnalyticsIndexerOptions) {}

  /** Loads the cursors, follows the bus and catches every session up (resolves when caught up). */
  start(): Promise<void> {
    this.starting ??= this.follow();
    return this.starting.then(() => this.idle());
  }

  private async follow(): Promise<void> {
    this.cursors = await this.opts.store.cursors();
    this.unsubscribe = this.opts.events.subscribe((event) => {
      if (FOLDED.has(event.type)) this.mark(event.sessionId);
    });
    for (const [sessionId, seq] of await this.opts.ledger.lastSeqs())
      if (seq > (this.cursors.get(sessionId)?.seq ?? 0)) this.mark(sessionId);
  }

  /** Drops every derived row and folds every ledger again. */
  async rebuild(): Promise<void> {
    await this.idle();
    // No fold may commit between the delete and forgetting the cursors: deliveries meanwhile only mark.
    this.holding = true;
    try {
      await this.opts.store.clear();
      this.cursors.clear();
    } finally {
      this.holding = false;
    }
    for (const sessionId of (await this.opts.ledger.lastSeqs()).keys()) this.mark(sessionId);
    await this.idle();
  }

  /** Resolves once every event delivered so far is folded and committed. */
  async idle(): Promise<void> {
    await this.starting?.catch(() => undefined);
    while (this.running) await this.running;
  }

  /**
   * Stops after the page being committed: a long catch-up must not hold up a shutdown, and what is
   * left is folded at the next start.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await this.idle();
  }

  /** A session this node just acquired (cluster) or wrote to the ledger directly (import, re-run): folded from its cursor. */
  adopt(sessionId: string): void {
    this.mark(sessionId);
  }

  private mark(sessionId: string): void {
    if (this.closed) return;
    if (this.opts.owner && !this.opts.owner.ownsLocally(sessionId)) return;
    this.dirty.add(sessionId);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.holding) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.dirty.size && !this.closed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Deliveries of one tick (a group commit) mark their sessions before the first read.
    await Promise.resolve();
    while (this.dirty.size && !this.closed) {
      const [sessionId] = this.dirty;
      this.dirty.delete(sessionId);
      try {
        await this.catchUp(sessionId);
      } catch (error) {
        // The cursor did not move: the next delivery (or start) reads the same events again.
        this.opts.onError?.(error);
      }
    }
  }

  private async catchUp(sessionId: string): Promise<void> {
    const pageSize = this.opts.pageSize ?? 1_000;
    let cursor = this.cursors.get(sessionId) ?? { seq: 0, state: emptyFoldState() };
    if (this.opts.owner) {
      // Another node may have folded further while it owned the session.
      const stored = await this.opts.store.cursor(sessionId);
      if (stored && stored.seq > cursor.seq) cursor = stored;
    }
    while (!this.closed) {
      const page = await this.opts.ledger.read(sessionId, cursor.seq, pageSize);
      if (!page.length) return;
      let state = cursor.state;
      const cycles: CycleFact[] = [];
      const silences: SilenceFact[] = [];
      for (const event of page) {
        if (!FOLDED.has(event.type)) continue;
        const step = foldEvent(state, event);
        state = step.state;
        if (step.cycle) cycles.push(step.cycle);
        if (step.silence) silences.push(step.silence);
      }
      const next = { seq: page[page.length - 1].seq, state };
      await this.opts.store.commit(sessionId, next, cycles, silences);
      this.cursors.set(sessionId, next);
      cursor = next;
      if (page.length < pageSize) return;
    }
  }
}

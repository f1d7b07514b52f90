// Fans the bus's events out to the subscriptions. One bus listener for all sockets; an event that
// several clients can take at once is encoded once and broadcast to all of them together.
import type { SubscribeRequest } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { EventListener } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import { StreamSubscription, type StreamClient, type StreamLimits } from "./subscription";

export type Broadcast = (clientIds: string[], event: MonitorEvent) => void;

/**
 * Committed events, each session's in seq order: the MonitorBus in one process; in a cluster the feed
 * that adds the sessions other nodes own (server/cluster/event-feed.ts).
 */
export interface EventSource {
  subscribe(listener: EventListener): () => void;
}

export class MonitorHub {
  /** Last seq offered to the subscriptions, per session (seeded from the ledger at start). */
  private readonly delivered = new Map<string, number>();
  private readonly bySession = new Map<string, Set<StreamSubscription>>();
  private readonly everySession = new Set<StreamSubscription>();
  private unsubscribeBus: (() => void) | null = null;

  constructor(
    private readonly bus: EventSource,
    private readonly ledger: EventLedger,
    private readonly limits: StreamLimits,
    private readonly broadcast: Broadcast,
    private readonly onError: (message: string) => void,
  ) {}

  /** Listens to the bus first, then learns where each stored session stands. */
  async start(): Promise<void> {
    this.unsubscribeBus = this.bus.subscribe((event) => this.onEvent(event));
    for (const [sessionId, seq] of await this.ledger.lastSeqs()) {
      if (seq > (this.delivered.get(sessionId) ?? 0)) this.delivered.set(sessionId, seq);
    }
  }

  stop(): void {
    this.unsubscribeBus?.();
    this.unsubscribeBus = null;
    for (const sub of [...this.everySession, ...[...this.bySession.values()].flatMap((set) => [...set])]) sub.close();
  }

  subscribe(request: SubscribeRequest, client: StreamClient): StreamSubscription {
    const sub = new StreamSubscription(request, client, this.ledger, this.limits, {
      deliveredSeq: (sessionId) => this.delivered.get(sessionId) ?? 0,
      deliveredSeqs: () => this.delivered.entries(),
      onClosed: (closed) => this.remove(closed),
      onError: this.onError,
    });
    if (sub.key === "*") this.everySession.add(sub);
    else {
      const set = this.bySession.get(sub.key) ?? new Set();
      set.add(sub);
      this.bySession.set(sub.key, set);
    }
    sub.start();
    return sub;
  }

  get subscriptionCount(): number {
    let count = this.everySession.size;
    for (const set of this.bySession.values()) count += set.size;
    return count;
  }

  private remove(sub: StreamSubscription): void {
    if (sub.key === "*") {
      this.everySession.delete(sub);
      return;
    }
    const set = this.bySession.get(sub.key);
    set?.delete(sub);
    if (set && !set.size) this.bySession.delete(sub.key);
  }

  private onEvent(event: MonitorEvent): void {
    const targets: string[] = [];
    const taken = new Set<string>();
    const offerTo = (sub: StreamSubscription) => {
      if (!sub.offer(event)) return;
      // A socket holding two matching subscriptions gets the event once per subscription.
      if (taken.has(sub.client.id)) sub.client.send(event);
      else {
        taken.add(sub.client.id);
        targets.push(sub.client.id);
      }
    };
    const direct = this.bySession.get(event.sessionId);
    if (direct) for (const sub of [...direct]) offerTo(sub);
    for (const sub of [...this.everySession]) offerTo(sub);
    // Recorded after the offers: a subscription pinning its cursor "from now" pins it before this event.
    this.delivered.set(event.sessionId, event.seq);
    if (targets.length) this.broadcast(targets, event);
  }
}

// The streams no chat owns (`_global`, `_usage`): written like a session's, by one node at a time. A
// single process writes them itself; a cluster routes each event to the node holding the stream's lease
// (server/cluster/stream-routing.ts), so the stream's seq never forks between nodes.
import type { EventData, EventType } from "../../lib/events/schemas";
import type { MonitorBus } from "./bus";

/** Hands an event to the stream's writer elsewhere: its seq there, or null when this node writes it. */
export type StreamRoute = (streamId: string, type: EventType, data: unknown) => Promise<number | null>;

export class SharedStreams {
  private route: StreamRoute | null = null;

  constructor(private readonly bus: Pick<MonitorBus, "emit" | "whenDurable">) {}

  /** A cluster node: events go where the route says. */
  routeThrough(route: StreamRoute): void {
    this.route = route;
  }

  /** Emits on the stream's writer; resolves with the event's seq once it is durable there. */
  async emit<T extends EventType>(streamId: string, type: T, data: EventData<T>): Promise<number> {
    const remote = this.route ? await this.route(streamId, type, data) : null;
    return remote ?? this.emitHere(streamId, type, data);
  }

  /** Emits on this node (its writer) and waits until the event is durable. */
  async emitHere<T extends EventType>(streamId: string, type: T, data: EventData<T>): Promise<number> {
    const event = this.bus.emit(streamId, type, data);
    await this.bus.whenDurable(streamId, event.seq);
    return event.seq;
  }
}

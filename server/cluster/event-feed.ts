// The live stream across nodes. Each node appends the events its bus committed (the sessions it owns) to
// one Redis Stream, and reads the stream for the events of sessions owned elsewhere; its realtime hub
// listens to this feed instead of the bus, so it offers every session's events, in seq order per session,
// each once.
//
// Nothing is lost for good when the stream loses entries (Redis restarted, an append failed): every event
// is in the shared ledger before it is on the stream, and a subscription that sees a seq gap reads what it
// missed from the ledger (server/realtime/subscription.ts). What the feed must do is deliver the tail, so
// a session that went quiet after the loss is not left behind: after a reconnect it fetches the last event
// of every session the ledger has further than the feed, and a writer whose appends failed puts a resync
// entry on the stream naming those sessions.
import { Redis } from "ioredis";
import { feedEventSchema, feedResyncSchema } from "../../lib/cluster/messages";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { EventListener } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import type { EventSource } from "../realtime/hub";

export interface EventFeedOptions {
  url: string;
  nodeId: string;
  /** Key prefix shared by the cluster (default "maisaka:"): the stream is `<prefix>events`. */
  prefix?: string;
  /** This node's committed events: its MonitorBus. */
  local: EventSource;
  ledger: Pick<EventLedger, "lastSeqs" | "read">;
  /** Entries the stream keeps (approximate trimming); a reader further behind refills from the ledger. */
  maxLen?: number;
  /** How long one XREAD waits for entries (ms). */
  blockMs?: number;
  logger?: { warn(message: string): void };
}

const DEFAULT_MAX_LEN = 100_000;
const READ_COUNT = 1_000;

export class EventFeed implements EventSource {
  private readonly key: string;
  private readonly writer: Redis;
  /** XREAD BLOCK holds its connection. */
  private readonly reader: Redis;
  private readonly listeners = new Set<EventListener>();
  /** Highest seq handed to the listeners, per session. */
  private readonly lastSeen = new Map<string, number>();
  private outbox: MonitorEvent[] = [];
  private flushing = false;
  /** Sessions with events that did not reach the stream, and the highest such seq. */
  private readonly unsent = new Map<string, number>();
  private lastId = "0-0";
  private runId = "";
  private needResync = false;
  private closed = false;
  private loop: Promise<void> = Promise.resolve();
  private stopLocal: () => void = () => undefined;
  private lastWarning = "";
  private readonly logger: { warn(message: string): void };

  private constructor(private readonly opts: EventFeedOptions) {
    this.key = `${opts.prefix ?? "maisaka:"}events`;
    this.logger = opts.logger ?? { warn: (m) => process.stderr.write(`${m}\n`) };
    const connection = {
      lazyConnect: true,
      connectionName: `maisaka:${opts.nodeId}:feed`,
      retryStrategy: (attempt: number) => Math.min(attempt * 50, 500),
      // Failed commands are counted as lost and resynced, never queued or resent late.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
    };
    this.writer = new Redis(opts.url, connection);
    this.reader = new Redis(opts.url, connection);
    for (const conn of [this.writer, this.reader]) {
      conn.on("error", (e: Error) => this.warnOnce(`redis: ${e.message}`));
      conn.on("ready", () => (this.lastWarning = ""));
    }
    let connected = false;
    this.writer.on("ready", () => {
      if (connected && this.unsent.size) this.scheduleFlush();
      connected = true;
    });
  }

  /** Connects, learns where the stream and the ledger stand, then follows both. */
  static async start(opts: EventFeedOptions): Promise<EventFeed> {
    const feed = new EventFeed(opts);
    try {
      await Promise.all([feed.writer.connect(), feed.reader.connect()]);
      // The stream position first: what is appended after it is read, what came before is in the ledger.
      const [last] = await feed.writer.xrevrange(feed.key, "+", "-", "COUNT", 1);
      feed.lastId = last?.[0] ?? "0-0";
      feed.runId = await runIdOf(feed.reader);
      for (const [sessionId, seq] of await opts.ledger.lastSeqs()) feed.lastSeen.set(sessionId, seq);
    } catch (error) {
      feed.writer.disconnect();
      feed.reader.disconnect();
      throw error;
    }
    feed.stopLocal = opts.local.subscribe((event) => feed.onLocal(event));
    feed.loop = feed.follow();
    return feed;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Highest seq the feed handed on for a session (0 when none). */
  seenSeq(sessionId: string): number {
    return this.lastSeen.get(sessionId) ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stopLocal();
    await this.flush();
    this.closed = true;
    // The blocked XREAD ends with the connection.
    this.reader.disconnect();
    await this.loop;
    await this.writer.quit().catch(() => this.writer.disconnect());
  }

  private onLocal(event: MonitorEvent): void {
    this.deliver(event);
    this.outbox.push(event);
    this.scheduleFlush();
  }

  /** Hands an event on unless one with its seq (or a later one) already went. */
  private deliver(event: MonitorEvent): void {
    if (event.seq <= (this.lastSeen.get(event.sessionId) ?? 0)) return;
    this.lastSeen.set(event.sessionId, event.seq);
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`[cluster] feed listener failed: ${errorText(error)}`);
      }
    }
  }

  private scheduleFlush(): void {
    if (this.flushing || this.closed) return;
    this.flushing = true;
    // Events of one tick (a group commit) go out in one pipeline.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.outbox;
    this.outbox = [];
    const resync = new Map(this.unsent);
    if (!batch.length && !resync.size) {
      this.flushing = false;
      return;
    }
    if (this.writer.status !== "ready") {
      this.markUnsent(batch);
      this.flushing = false;
      return;
    }
    this.unsent.clear();
    const pipeline = this.writer.pipeline();
    const add = (...fields: string[]) =>
      pipeline.xadd(this.key, "MAXLEN", "~", String(this.opts.maxLen ?? DEFAULT_MAX_LEN), "*", ...fields);
    if (resync.size) add("n", this.opts.nodeId, "r", JSON.stringify(Object.fromEntries(resync)));
    for (const event of batch) add("n", this.opts.nodeId, "e", JSON.stringify(event));
    const results = await pipeline.exec().catch(() => null);
    const offset = resync.size ? 1 : 0;
    if (!results || (offset && results[0]?.[0])) for (const [id, seq] of resync) this.noteUnsent(id, seq);
    this.markUnsent(batch.filter((_, i) => !results || results[i + offset]?.[0]));
    if (this.unsent.size)
      this.warnOnce(`[cluster] ${this.unsent.size} session(s) not on the event stream: resync queued`);
    this.flushing = false;
    if (this.outbox.length) this.scheduleFlush();
  }

  private markUnsent(events: MonitorEvent[]): void {
    for (const e of events) this.noteUnsent(e.sessionId, e.seq);
  }

  private noteUnsent(sessionId: string, seq: number): void {
    if (seq > (this.unsent.get(sessionId) ?? 0)) this.unsent.set(sessionId, seq);
  }

  /** Reads the stream until closed; after any failure, waits for Redis and catches up from the ledger. */
  private async follow(): Promise<void> {
    while (!this.closed) {
      try {
        if (this.needResync) {
          if (this.reader.status !== "ready") {
            await pause(100);
            continue;
          }
          const runId = await runIdOf(this.reader);
          // A restarted Redis has a new, empty stream whose ids say nothing about the old ones.
          if (runId !== this.runId) [this.runId, this.lastId] = [runId, "0-0"];
          await this.resyncAll();
          this.needResync = false;
        }
        const reply = await this.reader.xread(
          "COUNT",
          READ_COUNT,
          "BLOCK",
          this.opts.blockMs ?? 2_000,
          "STREAMS",
          this.key,
          this.lastId,
        );
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            await this.onEntry(fields);
          }
        }
      } catch (error) {
        if (this.closed) break;
        this.warnOnce(`[cluster] event stream: ${errorText(error)}`);
        this.needResync = true;
        await pause(100);
      }
    }
  }

  private async onEntry(fields: string[]): Promise<void> {
    const entry = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) entry.set(fields[i], fields[i + 1]);
    // This node's own events reached the hub from its bus.
    if (entry.get("n") === this.opts.nodeId) return;
    const event = entry.get("e");
    if (event !== undefined) {
      const parsed = feedEventSchema.safeParse(parseJson(event));
      if (!parsed.success) return this.warnOnce("[cluster] malformed event on the stream: dropped");
      // The owner's ledger accepted it: its data is an event of that type.
      return this.deliver(parsed.data as MonitorEvent);
    }
    const resync = entry.get("r");
    if (resync !== undefined) {
      const parsed = feedResyncSchema.safeParse(parseJson(resync));
      if (!parsed.success) return this.warnOnce("[cluster] malformed resync entry on the stream: dropped");
      for (const [sessionId, seq] of Object.entries(parsed.data)) await this.tail(sessionId, seq);
    }
  }

  /** Every session the ledger has further than the feed gets its last event handed on. */
  private async resyncAll(): Promise<void> {
    const behind = [...(await this.opts.ledger.lastSeqs())].filter(([id, seq]) => seq > this.seenSeq(id));
    for (const [sessionId, seq] of behind) await this.tail(sessionId, seq);
  }

  /** Hands on the session's event `seq` from the ledger; the subscriptions read what lies before it. */
  private async tail(sessionId: string, seq: number): Promise<void> {
    if (seq <= this.seenSeq(sessionId)) return;
    const [event] = await this.opts.ledger.read(sessionId, seq - 1, 1);
    if (event) this.deliver(event);
  }

  private warnOnce(message: string): void {
    if (message === this.lastWarning || this.closed) return;
    this.lastWarning = message;
    this.logger.warn(message);
  }
}

async function runIdOf(redis: Redis): Promise<string> {
  const info = await redis.info("server");
  return /run_id:(\w+)/.exec(info)?.[1] ?? "";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

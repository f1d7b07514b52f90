// A Socket.IO socket as a StreamClient. The write-queue depth is counted from engine.io's public
// events ("packetCreate" when a packet enters the connection's buffer, "flush" when the buffer goes
// to the transport): it grows only while the transport is still busy, i.e. the client reads slower
// than the server writes.
import type { Socket } from "socket.io";
import type { Resync } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { StreamClient } from "./subscription";

type RawConnection = Socket["conn"];

/** One counter per engine.io connection (several namespaces may share a connection). */
const depths = new WeakMap<RawConnection, { queued: number }>();

function depthOf(conn: RawConnection): { queued: number } {
  const known = depths.get(conn);
  if (known) return known;
  const depth = { queued: 0 };
  conn.on("packetCreate", () => void depth.queued++);
  conn.on("flush", (buffer: unknown[]) => void (depth.queued = Math.max(0, depth.queued - buffer.length)));
  depths.set(conn, depth);
  return depth;
}

export class SocketStreamClient implements StreamClient {
  private readonly depth: { queued: number };

  constructor(private readonly socket: Socket) {
    this.depth = depthOf(socket.conn);
  }

  get id(): string {
    return this.socket.id;
  }

  queued(): number {
    return this.depth.queued;
  }

  send(event: MonitorEvent): void {
    this.socket.emit("event", event);
  }

  resync(payload: Resync): void {
    this.socket.emit("resync", payload);
  }

  drained(below: number, timeoutMs: number): Promise<boolean> {
    if (this.depth.queued < below) return Promise.resolve(true);
    const conn = this.socket.conn;
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        conn.off("drain", onDrain);
        this.socket.off("disconnect", onGone);
        resolve(ok);
      };
      const onDrain = () => {
        if (this.depth.queued < below) finish(true);
      };
      const onGone = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      conn.on("drain", onDrain);
      this.socket.on("disconnect", onGone);
    });
  }
}

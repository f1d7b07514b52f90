// One framed, bidirectional IPC channel over a socket: either side sends requests (matched to their
// responses by requestId, each with a timeout), answers the peer's requests and sends broadcasts.
// Used by the Host and by the Runner alike.
import type { Socket } from "node:net";
import {
  PROTOCOL_VERSION,
  cancelSchema,
  envelopeSchema,
  ipcMethods,
  type Envelope,
  type IpcErrorCode,
} from "../../../lib/plugins/protocol";
import { IpcError, toIpcError } from "./errors";
import { FrameDecoder, encodeFrame } from "./framing";

export interface IpcConnectionOptions {
  maxFrameBytes: number;
  /** What pending requests fail with when the peer goes away. */
  lost: { code: IpcErrorCode; message: string };
  /** Answers a peer's request; the returned value is the response payload, a throw its error. */
  onRequest?: (envelope: Envelope, signal: AbortSignal) => unknown;
  onBroadcast?: (envelope: Envelope) => void;
  /** Called once, when the connection ends for any reason. */
  onClose?: (reason: IpcError) => void;
}

export interface RequestOptions {
  timeoutMs: number;
  pluginId?: string;
  signal?: AbortSignal;
}

interface Pending {
  resolve(payload: unknown): void;
  reject(error: IpcError): void;
}

export class IpcConnection {
  private nextRequestId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The peer's requests being handled, so a `request.cancel` can abort them. */
  private readonly inflight = new Map<number, AbortController>();
  private readonly decoder: FrameDecoder;
  private closedWith: IpcError | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly opts: IpcConnectionOptions,
  ) {
    this.decoder = new FrameDecoder(opts.maxFrameBytes);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (error) => this.close(new IpcError(opts.lost.code, `${opts.lost.message} (${error.message})`)));
    socket.on("close", () => this.close(new IpcError(opts.lost.code, opts.lost.message)));
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  request(method: string, payload: unknown, opts: RequestOptions): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (opts.signal?.aborted) return Promise.reject(new IpcError("E_CANCELLED", `${method} cancelled`));
    const requestId = this.nextRequestId++;
    return new Promise<unknown>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        this.pending.delete(requestId);
      };
      const giveUp = (error: IpcError) => {
        finish();
        this.send(requestId, "broadcast", ipcMethods.cancel, opts.pluginId, { requestId }, 0);
        reject(error);
      };
      const onAbort = () => giveUp(new IpcError("E_CANCELLED", `${method} cancelled`));
      const timer = setTimeout(
        () => giveUp(new IpcError("E_TIMEOUT", `${method} timed out after ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
      this.pending.set(requestId, {
        resolve: (value) => (finish(), resolve(value)),
        reject: (error) => (finish(), reject(error)),
      });
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        this.write(this.envelope(requestId, "request", method, opts.pluginId, payload, opts.timeoutMs, null));
      } catch (error) {
        finish();
        reject(toIpcError(error));
      }
    });
  }

  broadcast(method: string, payload: unknown, pluginId?: string): void {
    this.send(this.nextRequestId++, "broadcast", method, pluginId, payload, 0);
  }

  /** Ends the connection: pending requests fail with `reason`, the peer's in-flight ones are aborted. */
  close(reason: IpcError): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    for (const entry of [...this.pending.values()]) entry.reject(reason);
    for (const controller of this.inflight.values()) controller.abort(reason);
    this.inflight.clear();
    // destroySoon: a last answer already written (a refused hello) still reaches the peer.
    this.socket.destroySoon();
    this.opts.onClose?.(reason);
  }

  private onData(chunk: Buffer): void {
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      return this.close(toIpcError(error));
    }
    for (const raw of messages) {
      if (this.closedWith) return;
      const parsed = envelopeSchema.safeParse(raw);
      // A peer that breaks the envelope cannot be trusted to match responses either.
      if (!parsed.success)
        return this.close(
          new IpcError("E_BAD_PAYLOAD", `malformed envelope: ${parsed.error.issues[0]?.message ?? "invalid"}`),
        );
      this.dispatch(parsed.data);
    }
  }

  private dispatch(envelope: Envelope): void {
    if (envelope.messageType === "response") {
      const entry = this.pending.get(envelope.requestId);
      // No entry: the request already timed out or was cancelled; its late answer is dropped.
      if (!entry) return;
      if (envelope.error) entry.reject(new IpcError(envelope.error.code, envelope.error.message));
      else entry.resolve(envelope.payload);
      return;
    }
    if (envelope.messageType === "broadcast") {
      if (envelope.method === ipcMethods.cancel) {
        const target = cancelSchema.safeParse(envelope.payload);
        if (target.success)
          this.inflight.get(target.data.requestId)?.abort(new IpcError("E_CANCELLED", "cancelled by the caller"));
        return;
      }
      this.opts.onBroadcast?.(envelope);
      return;
    }
    void this.answer(envelope);
  }

  private async answer(request: Envelope): Promise<void> {
    const controller = new AbortController();
    this.inflight.set(request.requestId, controller);
    let payload: unknown = null;
    let error: IpcError | null = null;
    try {
      if (!this.opts.onRequest) throw new IpcError("E_METHOD_NOT_FOUND", `no handler for ${request.method}`);
      payload = await this.opts.onRequest(request, controller.signal);
    } catch (caught) {
      error = toIpcError(caught);
    }
    this.inflight.delete(request.requestId);
    if (controller.signal.aborted) return;
    try {
      this.write(
        this.envelope(
          request.requestId,
          "response",
          request.method,
          request.pluginId,
          payload,
          0,
          error?.toBody() ?? null,
        ),
      );
    } catch (sendError) {
      // The answer could not be framed (too large, not serialisable): the caller still gets one.
      this.send(
        request.requestId,
        "response",
        request.method,
        request.pluginId,
        null,
        0,
        toIpcError(sendError).toBody(),
      );
    }
  }

  /** Best-effort write: used where a failure has nobody left to report to. */
  private send(
    requestId: number,
    messageType: Envelope["messageType"],
    method: string,
    pluginId: string | undefined,
    payload: unknown,
    timeoutMs: number,
    error: Envelope["error"] = null,
  ): void {
    try {
      this.write(this.envelope(requestId, messageType, method, pluginId, payload, timeoutMs, error));
    } catch {
      // Dropped: the connection is closing or the message cannot be framed.
    }
  }

  private envelope(
    requestId: number,
    messageType: Envelope["messageType"],
    method: string,
    pluginId: string | undefined,
    payload: unknown,
    timeoutMs: number,
    error: Envelope["error"],
  ): Envelope {
    return {
      protocolVersion: PROTOCOL_VERSION,
      requestId,
      messageType,
      method,
      pluginId: pluginId ?? "",
      timestampMs: Date.now(),
      timeoutMs,
      payload,
      error,
    };
  }

  private write(envelope: Envelope): void {
    if (this.closedWith) throw this.closedWith;
    this.socket.write(encodeFrame(envelope, this.opts.maxFrameBytes));
  }
}

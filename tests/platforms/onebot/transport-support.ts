// The implementation side of the transport tests, kept minimal: a raw `ws` socket that answers
// get_login_info / get_version_info, lets a test answer (or not) every other action, and sends
// event frames or junk. The full protocol simulator is tests/support/onebot-sim.ts.
import type { IncomingMessage } from "node:http";
import { WebSocket, type RawData } from "ws";
import { until } from "../../support/until";

export const ACCESS_TOKEN = "onebot-test-token-42";

export interface ActionFrame {
  action: string;
  params: Record<string, unknown>;
  echo: unknown;
}

/** What the implementation does with an action: answer it (the frame without echo) or stay silent (null). */
export type Responder = (frame: ActionFrame) => Record<string, unknown> | null;

export const ok = (data: unknown) => ({ status: "ok", retcode: 0, data });

export class FakeImplementation {
  readonly actions: ActionFrame[] = [];
  responder: Responder = () => null;
  closed: { code: number; reason: string } | null = null;

  constructor(
    readonly socket: WebSocket,
    readonly selfId: string,
  ) {
    socket.on("message", (data: RawData) => {
      // The server sends text frames: one Buffer each.
      const frame = JSON.parse((data as Buffer).toString("utf8")) as ActionFrame;
      this.actions.push(frame);
      const answer = this.answerOf(frame);
      if (answer) this.send({ ...answer, echo: frame.echo });
    });
    socket.on("close", (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** A group message event of this account. */
  message(messageId: number, text: string, groupId = 700): Record<string, unknown> {
    return {
      time: Math.floor(Date.now() / 1000),
      self_id: Number(this.selfId),
      post_type: "message",
      message_type: "group",
      sub_type: "normal",
      message_id: messageId,
      group_id: groupId,
      user_id: 5555,
      message: [{ type: "text", data: { text } }],
      raw_message: text,
      sender: { user_id: 5555, nickname: "Alice" },
    };
  }

  meta(kind: "heartbeat" | "lifecycle", extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      time: Math.floor(Date.now() / 1000),
      self_id: Number(this.selfId),
      post_type: "meta_event",
      meta_event_type: kind,
      ...(kind === "lifecycle" ? { sub_type: "connect" } : { status: { online: true, good: true } }),
      ...extra,
    };
  }

  async waitForAction(action: string, count = 1): Promise<ActionFrame[]> {
    return until(() => {
      const found = this.actions.filter((a) => a.action === action);
      return found.length >= count ? found : null;
    }, `${count} ${action} action(s) from the server`);
  }

  waitClosed(): Promise<{ code: number; reason: string }> {
    return until(() => this.closed, `the server to close the connection of ${this.selfId}`);
  }

  close(): void {
    this.socket.close();
  }

  private answerOf(frame: ActionFrame): Record<string, unknown> | null {
    if (frame.action === "get_login_info") return ok({ user_id: Number(this.selfId), nickname: `bot${this.selfId}` });
    if (frame.action === "get_version_info")
      return ok({ app_name: "FakeImpl", app_version: "1.2.3", protocol_version: "v11" });
    return this.responder(frame);
  }
}

export interface ReverseOptions {
  path?: string;
  selfId?: string | null;
  role?: string | null;
  /** How the token travels; "none" sends none. */
  tokenVia?: "bearer" | "token" | "query" | "none";
  token?: string;
  autoPong?: boolean;
  /** The loopback address to connect from (127.0.0.2, …): another client address. */
  localAddress?: string;
}

/** The handshake's outcome: the open socket, or the HTTP status of the refusal (never a 101). */
export async function dialReverse(
  base: string,
  opts: ReverseOptions = {},
): Promise<{ status: number; impl: FakeImplementation | null; body: string; retryAfter: string | null }> {
  const token = opts.token ?? ACCESS_TOKEN;
  const via = opts.tokenVia ?? "bearer";
  const url = new URL(opts.path ?? "/onebot/v11/ws", base.replace(/^http/, "ws"));
  if (via === "query") url.searchParams.set("access_token", token);
  const headers: Record<string, string> = {};
  const selfId = opts.selfId === undefined ? "10001" : opts.selfId;
  const role = opts.role === undefined ? "Universal" : opts.role;
  if (selfId !== null) headers["x-self-id"] = selfId;
  if (role !== null) headers["x-client-role"] = role;
  if (via === "bearer") headers.authorization = `Bearer ${token}`;
  if (via === "token") headers.authorization = `Token ${token}`;
  const socket = new WebSocket(url, { headers, autoPong: opts.autoPong ?? true, localAddress: opts.localAddress });
  // Listening from the start: the server's first actions may come in the same read as the 101.
  const impl = new FakeImplementation(socket, selfId ?? "");
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve({ status: 101, impl, body: "", retryAfter: null }));
    socket.once("unexpected-response", (_req, res: IncomingMessage) => {
      let body = "";
      const retryAfter = res.headers["retry-after"] ?? null;
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, impl: null, body, retryAfter }));
    });
    socket.once("error", (error) => reject(error));
  });
}

/** A reverse connection that is open, with its implementation side. */
export async function connectReverse(base: string, opts: ReverseOptions = {}): Promise<FakeImplementation> {
  const { status, impl, body } = await dialReverse(base, opts);
  if (!impl) throw new Error(`reverse handshake refused: ${status} ${body}`);
  return impl;
}

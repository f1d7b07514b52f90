// What the rest of the OneBot adapter needs from a connection: calling an action of one bot account.
// The transport (connections, reverse and forward) implements it; inbound mapping and outbound
// sending use it.

export type OneBotActionFailure =
  /** No open connection of this self id can take actions. */
  | "no_connection"
  /** No answer with our echo within the timeout. */
  | "timeout"
  /** The connection closed before the answer came. */
  | "closed"
  /** The implementation answered status "failed" or a non-zero retcode. */
  | "failed";

export class OneBotActionError extends Error {
  constructor(
    readonly action: string,
    readonly failure: OneBotActionFailure,
    message: string,
    readonly retcode?: number,
  ) {
    super(message);
    this.name = "OneBotActionError";
  }
}

export interface OneBotApi {
  readonly selfId: string;
  /**
   * Sends the action with a fresh echo and resolves with the answer's `data` once it comes with status
   * ok (or async). Rejects with OneBotActionError otherwise; never hangs past the timeout.
   */
  call(action: string, params: Record<string, unknown>, opts?: { timeoutMs?: number }): Promise<unknown>;
}

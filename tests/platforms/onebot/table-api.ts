// An in-process OneBotApi for unit tests: answers actions from a table of handlers and records every
// call. A missing action fails like an implementation that does not support it (retcode 1404).
import { OneBotActionError, type OneBotApi } from "../../../server/platforms/onebot/api";

export type ActionHandler = (params: Record<string, unknown>) => unknown;

export class TableApi implements OneBotApi {
  readonly calls: { action: string; params: Record<string, unknown> }[] = [];

  constructor(
    readonly selfId: string,
    readonly handlers: Record<string, ActionHandler> = {},
  ) {}

  async call(action: string, params: Record<string, unknown>): Promise<unknown> {
    this.calls.push({ action, params });
    const handler = this.handlers[action];
    if (!handler) throw new OneBotActionError(action, "failed", `${action} is not supported`, 1404);
    return handler(params);
  }

  callsOf(action: string): Record<string, unknown>[] {
    return this.calls.filter((c) => c.action === action).map((c) => c.params);
  }
}

/** A handler that fails the way a timed-out action does. */
export const timesOut =
  (action: string): ActionHandler =>
  () => {
    throw new OneBotActionError(action, "timeout", `${action} got no answer`);
  };

// Where each session's bot messages go: sessions of a OneBot chat to the OneBot adapter, every other
// session (the API, the dashboard, the CLI) stays local. The server builds one and hands it to the
// engine (createEngine's `outbound` option).
import { localOutbound, type DeliveryResult, type OutboundMessage, type OutboundSink } from "../engine";
import type { SessionRecord } from "../stores/sessions";
import { chatOfSessionId } from "./onebot/session-ids";

export interface OutboundRoutes {
  /** The OneBot adapter (OneBotOutbound); absent: OneBot chats cannot be sent to. */
  onebot?: OutboundSink;
  /** Sessions of no platform (default: localOutbound). */
  local?: OutboundSink;
}

export class OutboundRouter implements OutboundSink {
  constructor(private readonly routes: OutboundRoutes = {}) {}

  /** Set once the platform adapter is up (the server starts the engine first). */
  setOneBot(sink: OutboundSink | undefined): void {
    this.routes.onebot = sink;
  }

  deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
    if (chatOfSessionId(session.id) === null) return (this.routes.local ?? localOutbound).deliver(session, message);
    // A OneBot chat with no adapter running: the message would reach no one, say so.
    if (!this.routes.onebot) return Promise.resolve({ delivered: false, error: "the OneBot adapter is not running" });
    return this.routes.onebot.deliver(session, message);
  }
}

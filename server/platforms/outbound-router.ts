// Where each session's bot messages go: a platform's chat to the adapter that owns it (the registry),
// every other session (the API, the dashboard, the CLI) stays local. The server builds one and hands it
// to the engine (createEngine's `outbound` option).
import { localOutbound, type DeliveryResult, type OutboundMessage, type OutboundSink } from "../engine";
import type { SessionRecord } from "../stores/sessions";
import type { AdapterRegistry } from "./registry";

export class OutboundRouter implements OutboundSink {
  constructor(
    private readonly adapters: AdapterRegistry,
    /** Sessions of no platform (default: localOutbound). */
    private readonly local: OutboundSink = localOutbound,
  ) {}

  deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
    const owner = this.adapters.ownerOf(session.id);
    if (!owner) return this.local.deliver(session, message);
    // A platform's chat with no adapter running: the message would reach no one, say so.
    if ("down" in owner)
      return Promise.resolve({ delivered: false, error: `the ${owner.down} adapter is not running` });
    return owner.adapter.outbound.deliver(session, message);
  }
}

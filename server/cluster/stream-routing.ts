// A cluster's shared streams (`_global`, `_usage`, see server/monitor/shared-streams.ts): the node holding
// a stream's lease writes it; the others hand it their events over the messenger. A writer that dies or
// hands the stream over is found again (its lease moved), so a few tries cover a take-over.
import { setTimeout as sleep } from "node:timers/promises";
import { streamEmitReplySchema, streamEmitSchema } from "../../lib/cluster/messages";
import { eventDataSchemas, type EventType } from "../../lib/events/schemas";
import type { SharedStreams } from "../monitor/shared-streams";
import type { NodeMessenger, SessionDirectory } from "../kernel/cluster";

const METHOD = "stream.emit";
const TRIES = 4;

const isEventType = (type: string): type is EventType => Object.hasOwn(eventDataSchemas, type);

export function routeSharedStreams(
  streams: SharedStreams,
  directory: Pick<SessionDirectory, "ownerOf">,
  messenger: NodeMessenger,
): void {
  const self = messenger.nodeId;
  messenger.handle(METHOD, async (payload) => {
    const { streamId, type, data } = streamEmitSchema.parse(payload);
    if (!isEventType(type)) throw new Error(`unknown event type ${type}`);
    if ((await directory.ownerOf(streamId)) !== self) throw new Error(`${self} does not write ${streamId}`);
    // Checked against the type's own schema: another node's code built it, this node records it.
    return { seq: await streams.emitHere(streamId, type, eventDataSchemas[type].parse(data)) };
  });
  streams.routeThrough(async (streamId, type, data) => {
    for (let attempt = 1; ; attempt++) {
      const owner = await directory.ownerOf(streamId);
      if (owner === self) return null;
      try {
        return streamEmitReplySchema.parse(await messenger.call(owner, METHOD, { streamId, type, data })).seq;
      } catch (error) {
        if (attempt >= TRIES) throw error;
        await sleep(250 * attempt);
      }
    }
  });
}

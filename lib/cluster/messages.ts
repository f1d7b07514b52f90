// What nodes of a cluster send each other over Redis pub/sub (server/cluster/messenger.ts): calls and
// their replies on the callee's / caller's own channel, notices on a topic's channel.
import { z } from "zod";

export const nodeCallSchema = z.object({
  kind: z.literal("call"),
  /** Correlation id: the reply carries it back to the pending call. */
  id: z.string().min(1),
  from: z.string().min(1),
  method: z.string().min(1),
  payload: z.unknown(),
});

export const nodeReplySchema = z.discriminatedUnion("ok", [
  z.object({
    kind: z.literal("reply"),
    id: z.string().min(1),
    from: z.string().min(1),
    ok: z.literal(true),
    result: z.unknown(),
  }),
  z.object({
    kind: z.literal("reply"),
    id: z.string().min(1),
    from: z.string().min(1),
    ok: z.literal(false),
    error: z.string(),
  }),
]);

/** What arrives on a node's own channel. */
export const nodeEnvelopeSchema = z.union([nodeCallSchema, nodeReplySchema]);
export type NodeEnvelope = z.infer<typeof nodeEnvelopeSchema>;

export const nodeNoticeSchema = z.object({ from: z.string().min(1), payload: z.unknown() });
export type NodeNotice = z.infer<typeof nodeNoticeSchema>;

/**
 * A committed event on the cluster's event stream (server/cluster/event-feed.ts): the envelope is
 * checked, the payload passes as the owner's ledger stored it.
 */
export const feedEventSchema = z.object({
  seq: z.number().int().positive(),
  sessionId: z.string().min(1),
  type: z.string().min(1),
  ts: z.number(),
  data: z.unknown(),
});

/** "Some events of these sessions never reached the stream, up to this seq": readers fetch the tail. */
export const feedResyncSchema = z.record(z.string(), z.number().int().positive());

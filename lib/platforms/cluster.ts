// What cluster nodes send each other for OneBot (server/platforms/onebot/cluster-relay.ts): an action of a bot account
// run on the node holding its connection and its outcome, an inbound event handed to its session's
// owner, a platform event for the platform stream's owner, and each node's connections for the panel.
import { z } from "zod";
import { onebotEventFrameSchema } from "./onebot";
import { inboundCountersSchema, platformConnectionSchema } from "./status";

export const onebotRemoteActionSchema = z.object({
  selfId: z.string().min(1),
  action: z.string().min(1),
  params: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive().optional(),
});

/** The action's outcome as a value, so the caller rebuilds the same OneBotActionError. */
export const onebotRemoteOutcomeSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({
    ok: z.literal(false),
    failure: z.enum(["no_connection", "timeout", "closed", "failed"]),
    message: z.string(),
    retcode: z.number().optional(),
  }),
]);
export type OneBotRemoteOutcome = z.infer<typeof onebotRemoteOutcomeSchema>;

export const onebotRemoteEventSchema = z.object({ event: onebotEventFrameSchema });

export const onebotRemotePlatformEventSchema = z.object({
  type: z.enum(["platform.connected", "platform.disconnected", "platform.request"]),
  payload: z.record(z.string(), z.unknown()),
});

/** One node's OneBot connections and inbound counters, as it last published them. */
export const onebotNodeSnapshotSchema = z.object({
  node: z.string(),
  connections: z.array(platformConnectionSchema),
  inbound: inboundCountersSchema.nullable(),
});
export type OneBotNodeSnapshot = z.infer<typeof onebotNodeSnapshotSchema>;

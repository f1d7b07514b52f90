// OneBot v11 wire frames (https://11.onebot.dev, github.com/botuniverse/onebot-11): what an
// implementation (NapCat, Lagrange.OneBot, LLOneBot, go-cqhttp) sends us and answers. Loose where the
// implementations differ (extra fields are kept, numeric ids may arrive as strings), strict where we
// depend on a field.
import { z } from "zod";

/** QQ ids are numbers on the wire; some implementations send strings. We keep them as strings. */
export const onebotIdSchema = z.union([z.number(), z.string().min(1)]).transform((v) => String(v));

/** One message segment: `{ type, data }`; data values are strings in CQ codes, anything in arrays. */
export const onebotSegmentSchema = z.object({
  type: z.string().min(1),
  data: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((d) => d ?? {}),
});
export type OneBotSegment = z.infer<typeof onebotSegmentSchema>;

/** A message as it travels: a segment array, or a CQ-code string (the "string" message format). */
export const onebotMessageSchema = z.union([z.string(), z.array(onebotSegmentSchema)]);
export type OneBotMessage = z.infer<typeof onebotMessageSchema>;

const senderSchema = z
  .object({
    user_id: onebotIdSchema.optional(),
    nickname: z.string().optional(),
    card: z.string().optional(),
    role: z.string().optional(),
  })
  .loose();

const eventBase = { time: z.number(), self_id: onebotIdSchema };

export const onebotMessageEventSchema = z
  .object({
    ...eventBase,
    post_type: z.enum(["message", "message_sent"]),
    message_type: z.enum(["private", "group"]),
    sub_type: z.string().optional(),
    message_id: onebotIdSchema,
    user_id: onebotIdSchema,
    group_id: onebotIdSchema.optional(),
    message: onebotMessageSchema,
    raw_message: z.string().optional(),
    sender: senderSchema.optional(),
  })
  .loose();
export type OneBotMessageEvent = z.infer<typeof onebotMessageEventSchema>;

export const onebotNoticeEventSchema = z
  .object({
    ...eventBase,
    post_type: z.literal("notice"),
    notice_type: z.string(),
    sub_type: z.string().optional(),
    group_id: onebotIdSchema.optional(),
    user_id: onebotIdSchema.optional(),
    operator_id: onebotIdSchema.optional(),
    target_id: onebotIdSchema.optional(),
    message_id: onebotIdSchema.optional(),
  })
  .loose();
export type OneBotNoticeEvent = z.infer<typeof onebotNoticeEventSchema>;

/** A request (event/request.md): someone asks to be the bot's friend, to join a group, or invites the bot into one. */
export const onebotRequestEventSchema = z
  .object({
    ...eventBase,
    post_type: z.literal("request"),
    request_type: z.enum(["friend", "group"]),
    /** group: "add" (someone asks to join) or "invite" (the bot is invited). */
    sub_type: z.string().optional(),
    user_id: onebotIdSchema,
    group_id: onebotIdSchema.optional(),
    comment: z
      .string()
      .nullish()
      .transform((c) => c ?? ""),
    /** What the set_*_add_request action needs to answer it. */
    flag: z.string().min(1),
  })
  .loose();
export type OneBotRequestEvent = z.infer<typeof onebotRequestEventSchema>;

export const onebotMetaEventSchema = z
  .object({
    ...eventBase,
    post_type: z.literal("meta_event"),
    meta_event_type: z.string(),
    sub_type: z.string().optional(),
    /** heartbeat: the implementation's next heartbeat comes within this many ms. */
    interval: z.number().optional(),
    status: z.unknown().optional(),
  })
  .loose();

/** Any event frame: has post_type. Narrow it with the schemas above. */
export const onebotEventFrameSchema = z.object({ ...eventBase, post_type: z.string() }).loose();
export type OneBotEventFrame = z.infer<typeof onebotEventFrameSchema>;

/** An action's answer: has echo (ours) and status/retcode. */
export const onebotActionResponseSchema = z
  .object({
    status: z.string(),
    retcode: z.number(),
    data: z.unknown().optional(),
    message: z.string().optional(),
    msg: z.string().optional(),
    wording: z.string().optional(),
    echo: z.unknown().optional(),
  })
  .loose();
export type OneBotActionResponse = z.infer<typeof onebotActionResponseSchema>;

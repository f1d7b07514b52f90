// GET /api/platforms: the chat platform adapters and their connections as operators see them
// (docs/interface.md#platforms).
import { z } from "zod";
import { platformRequestData } from "../events/schemas";

/** The platforms an adapter can be for (docs/interface.md#platforms). */
const platformNameSchema = z.enum(["onebot", "telegram", "discord", "qqbot", "satori"]);
export type PlatformName = z.infer<typeof platformNameSchema>;

const linkStateSchema = z.enum(["connecting", "open", "closed"]);

/** One bot account of an adapter: open while one of its connections is. */
const adapterAccountSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  state: linkStateSchema,
  lastError: z.string().optional(),
});

/**
 * One adapter: "open" when an account is open, "connecting" while one is trying, "closed" otherwise
 * (none yet, or every connection down).
 */
const adapterStatusSchema = z.object({
  platform: platformNameSchema,
  state: linkStateSchema,
  accounts: z.array(adapterAccountSchema),
});
export type AdapterStatus = z.infer<typeof adapterStatusSchema>;

export const platformConnectionSchema = z.object({
  platform: z.literal("onebot"),
  selfId: z.string(),
  mode: z.enum(["reverse", "forward"]),
  role: z.enum(["Universal", "API", "Event"]),
  /** The forward URL, or the remote address of a reverse connection. */
  address: z.string(),
  state: linkStateSchema,
  /** From get_version_info: app_name and app_version. */
  implementation: z.object({ name: z.string(), version: z.string() }).optional(),
  /** From get_login_info. */
  login: z.object({ userId: z.string(), nickname: z.string() }).optional(),
  connectedSince: z.number().nullable(),
  lastHeartbeatAt: z.number().nullable(),
  eventsIn: z.number().int(),
  actionsOut: z.number().int(),
  errors: z.number().int(),
  /** retcode: the implementation's own, when it refused the connection with one (NapCat: 1403, a wrong token). */
  lastError: z.object({ at: z.number(), message: z.string(), retcode: z.number().optional() }).optional(),
  /**
   * Events received on the open connection and not yet handled (peak: the most at once); paused:
   * reading from it is paused until they are (a flood from this connection is held back at the socket).
   */
  backlog: z.object({ waiting: z.number().int(), peak: z.number().int(), paused: z.boolean() }).optional(),
  /** The cluster node holding the connection (cluster mode only). */
  node: z.string().optional(),
});
export type PlatformConnection = z.infer<typeof platformConnectionSchema>;

/** What became of the inbound events of every connection (the inbound mapping's counters). */
export const inboundCountersSchema = z.object({
  /** Chat messages (and pokes) registered with the engine. */
  ingested: z.number().int(),
  /** Member changes noted in a session's context. */
  notes: z.number().int(),
  /** Repeats of a message already taken. */
  duplicates: z.number().int(),
  /** The bot's own messages (message_sent, or sent by the self id). */
  own: z.number().int(),
  /** From chats the bot does not serve (deny/allow lists, private switch). */
  denied: z.number().int(),
  recalls: z.number().int(),
  /** Friend requests and group invitations (handled by platforms.onebot.requests). */
  requests: z.number().int(),
  /** Events of no interest here (other notices, unknown post types). */
  ignored: z.number().int(),
  /** Events that do not fit their schema. */
  malformed: z.number().int(),
  /** Events whose handling failed (a store or engine error). */
  failed: z.number().int(),
});
export type InboundCounters = z.infer<typeof inboundCountersSchema>;

/** QQ ids as the lists hold them: digits. */
const qqIdSchema = z.string().regex(/^\d{1,20}$/, "a QQ id (digits)");
const audienceListsSchema = z.object({
  allow: z.array(qqIdSchema).max(10_000),
  deny: z.array(qqIdSchema).max(10_000),
});

/** Which chats the OneBot bots serve: config platforms.onebot.groups / users / private, changeable live. */
export const onebotAudienceSchema = z.object({
  groups: audienceListsSchema,
  users: audienceListsSchema,
  private: z.boolean(),
});
export type OneBotAudience = z.infer<typeof onebotAudienceSchema>;
/** The audience an adapter's settings hold (the seam's name for OneBot's shape, the one there is). */
export type ChatAudience = OneBotAudience;

/** PATCH /api/platforms/onebot/audience: the parts to change, and why (audited). */
export const onebotAudiencePatchSchema = z.object({
  groups: audienceListsSchema.optional(),
  users: audienceListsSchema.optional(),
  private: z.boolean().optional(),
  reason: z.string().trim().min(1, "a reason is required").max(500),
  /**
   * The audience the operator edited from: when a part being changed differs from it now, another
   * operator changed it meanwhile and the change is refused (409 with the current audience).
   */
  base: onebotAudienceSchema.optional(),
});
export type OneBotAudiencePatch = z.infer<typeof onebotAudiencePatchSchema>;
export type ChatAudiencePatch = OneBotAudiencePatch;

/** A PATCH refused because the audience changed since the operator loaded it. */
export const onebotAudienceConflictSchema = z.object({ error: z.string(), current: onebotAudienceSchema });

/** What a change came to: applied (before and after), or refused with the audience as it is now. */
export type AudienceChange =
  { ok: true; before: ChatAudience; after: ChatAudience } | { ok: false; current: ChatAudience };

/** A friend request or group invitation as the Platforms page lists it: its platform.request and when it came. */
export const platformRequestSchema = platformRequestData.extend({ at: z.number() });
export type PlatformRequest = z.infer<typeof platformRequestSchema>;

/** The request policy in force (config platforms.onebot.requests) and the newest requests recorded, newest first. */
export const platformRequestsSchema = z.object({
  policy: z.enum(["ignore", "notify", "approve"]),
  recent: z.array(platformRequestSchema),
});
export type PlatformRequests = z.infer<typeof platformRequestsSchema>;

export const platformsResponseSchema = z.object({
  /** Every adapter the server runs, with its accounts ([] when an answer leaves it out). */
  adapters: z.array(adapterStatusSchema).default([]),
  connections: z.array(platformConnectionSchema),
  /** null when no platform is configured. */
  audience: onebotAudienceSchema.nullable(),
  /** null when no platform is configured. */
  inbound: inboundCountersSchema.nullable(),
  /** null when no platform is configured. */
  requests: platformRequestsSchema.nullable(),
});
export type PlatformsResponse = z.infer<typeof platformsResponseSchema>;

/** POST /api/sessions/:id/send: an operator speaks as the bot into the session's chat. */
export const operatorSendBodySchema = z.object({
  text: z.string().trim().min(1).max(4000),
  replyTo: z.string().min(1).max(128).optional(),
});
export type OperatorSendBody = z.infer<typeof operatorSendBodySchema>;

/** Its answer: 200 delivered (messageId: the stored id of the bot's message), 502 not delivered (error). */
export const operatorSendResponseSchema = z.object({
  messageId: z.string().nullable(),
  delivered: z.boolean(),
  error: z.string().optional(),
});
export type OperatorSendResponse = z.infer<typeof operatorSendResponseSchema>;

// GET /api/platforms: the chat platform connections as operators see them (interface.md, Platforms).
import { z } from "zod";

export const platformConnectionSchema = z.object({
  platform: z.literal("onebot"),
  selfId: z.string(),
  mode: z.enum(["reverse", "forward"]),
  role: z.enum(["Universal", "API", "Event"]),
  /** The forward URL, or the remote address of a reverse connection. */
  address: z.string(),
  state: z.enum(["connecting", "open", "closed"]),
  /** From get_version_info: app_name and app_version. */
  implementation: z.object({ name: z.string(), version: z.string() }).optional(),
  /** From get_login_info. */
  login: z.object({ userId: z.string(), nickname: z.string() }).optional(),
  connectedSince: z.number().nullable(),
  lastHeartbeatAt: z.number().nullable(),
  eventsIn: z.number().int(),
  actionsOut: z.number().int(),
  errors: z.number().int(),
  lastError: z.object({ at: z.number(), message: z.string() }).optional(),
});
export type PlatformConnection = z.infer<typeof platformConnectionSchema>;

export const platformsResponseSchema = z.object({ connections: z.array(platformConnectionSchema) });
export type PlatformsResponse = z.infer<typeof platformsResponseSchema>;

/** POST /api/sessions/:id/send: an operator speaks as the bot into the session's chat. */
export const operatorSendBodySchema = z.object({
  text: z.string().trim().min(1).max(4000),
  replyTo: z.string().min(1).max(128).optional(),
});
export type OperatorSendBody = z.infer<typeof operatorSendBodySchema>;

/**
 * The answer of POST /api/sessions/:id/send: the engine's DeliveryResult (server/engine/deps.ts) with
 * the stored message id. Loose on purpose: the dashboard shows whatever of it the server gives.
 */
export const operatorSendResultSchema = z.looseObject({
  delivered: z.boolean(),
  messageId: z.string().optional(),
  platformMessageId: z.string().nullable().optional(),
  /** Why it was not delivered, e.g. "not_delivered", "unknown_reply_target". */
  reason: z.string().optional(),
  error: z.string().optional(),
});
export type OperatorSendResult = z.infer<typeof operatorSendResultSchema>;

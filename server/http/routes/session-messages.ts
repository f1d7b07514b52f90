// POST /api/sessions/:id/messages: an operator's chat message, handed to the session's runtime like
// any platform message; the bot's answers arrive as message.sent events.
import { acceptedMessageSchema, inboundMessageBodySchema, sessionParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const postMessageRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/messages",
  params: sessionParamsSchema,
  body: inboundMessageBodySchema,
  response: acceptedMessageSchema,
  async handle({ params, body }, ctx) {
    const session = await ctx.sessions.require(params.id);
    const bucket = ctx.inbound.take(session.id);
    if (!bucket.ok) {
      throw new HttpError(429, `too many messages into session ${session.id}`, undefined, {
        "retry-after": String(Math.max(1, Math.ceil(bucket.retryAfterMs / 1000))),
      });
    }
    return { status: 202, body: { messageId: await ctx.sessions.ingest(session, body) } };
  },
});

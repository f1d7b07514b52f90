// POST /api/sessions/:id/messages: an operator's chat message, handed to the session's runtime like
// any platform message; the bot's answers arrive as message.sent events.
import { acceptedMessageSchema, inboundMessageBodySchema, sessionParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

/** Seconds a client waits before retrying while the database cannot take writes. */
export const DB_RETRY_AFTER_S = 10;

export const postMessageRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/messages",
  params: sessionParamsSchema,
  body: inboundMessageBodySchema,
  response: acceptedMessageSchema,
  async handle({ params, body }, ctx) {
    const session = await ctx.sessions.requireWritable(params.id);
    // Backpressure: a message accepted now could not be stored, nor its events written; refusing it
    // keeps the ledger's backlog bounded until the database takes writes again.
    if (!ctx.database.acceptsWrites()) {
      const { state } = ctx.database.status();
      throw new HttpError(503, `the database cannot take writes (${state}); try again later`, undefined, {
        "retry-after": String(DB_RETRY_AFTER_S),
      });
    }
    const bucket = ctx.inbound.take(session.id);
    if (!bucket.ok) {
      throw new HttpError(429, `too many messages into session ${session.id}`, undefined, {
        "retry-after": String(Math.max(1, Math.ceil(bucket.retryAfterMs / 1000))),
      });
    }
    return { status: 202, body: { messageId: await ctx.sessions.ingest(session, body) } };
  },
});

// POST /api/sessions/:id/send: an operator speaks as the bot into the session's real chat. It goes
// the bot's own way (the outbound sink, the message store, message.sent or message.send_failed) and
// is audited as an operator.action event.
import { sessionParamsSchema } from "../../../lib/api/schemas";
import { operatorSendBodySchema, operatorSendResponseSchema } from "../../../lib/platforms/status";
import { apiRoute } from "../context";
import { HttpError } from "../errors";
import { DB_RETRY_AFTER_S } from "./session-messages";

export const operatorSendRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/send",
  params: sessionParamsSchema,
  body: operatorSendBodySchema,
  response: operatorSendResponseSchema,
  async handle({ params, body, actor }, ctx) {
    const session = await ctx.sessions.requireWritable(params.id);
    if (!ctx.database.acceptsWrites()) {
      const { state } = ctx.database.status();
      throw new HttpError(503, `the database cannot take writes (${state}); try again later`, undefined, {
        "retry-after": String(DB_RETRY_AFTER_S),
      });
    }
    // The operator.action event names the account.
    const result = await ctx.engine.manager.sendAsOperator(session, body, actor.name);
    await ctx.audit.record({
      actor,
      action: "message.send",
      target: `session:${session.id}`,
      after: { text: body.text, replyTo: body.replyTo ?? null, delivered: result.delivered },
    });
    if (result.delivered) return { status: 200, body: { messageId: result.messageId, delivered: true } };
    if (result.reason === "unknown_reply_target") throw new HttpError(404, `message ${body.replyTo} not found`);
    // The platform did not take it: a bad gateway, with the platform's reason.
    return { status: 502, body: { messageId: null, delivered: false, error: result.error } };
  },
});

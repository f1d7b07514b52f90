// GET /api/sessions/:id/messages/:messageId/images/:index: a chat image, fetched by the server, so the
// operator's browser never contacts the platform's image hosts (and the page CSP stays 'self'). Only
// URLs a stored message carries are fetched: nobody can name an arbitrary URL (no open proxy).
import { chatImageParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { HttpError, notFound } from "../errors";
import { IconFetchError } from "../services/icon-proxy";

/** Opened directly, an image must not run anything in this origin. */
const IMAGE_CSP = "default-src 'none'; sandbox";

export const chatImageRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/messages/:messageId/images/:index",
  params: chatImageParamsSchema,
  async handle({ params }, ctx) {
    const session = await ctx.sessions.require(params.id);
    const message = await ctx.engine.stores.messages.get(session.id, params.messageId);
    if (!message) throw notFound(`message ${params.messageId}`);
    const url = message.images?.[params.index]?.url;
    if (!url || !/^https?:\/\//i.test(url)) throw notFound(`image ${params.index} of message ${params.messageId}`);
    try {
      const image = await ctx.chatImages.fetchSource(url);
      return {
        raw: { bytes: image.body, contentType: image.mimeType },
        headers: {
          "cache-control": "private, max-age=86400",
          "content-security-policy": IMAGE_CSP,
          "x-content-type-options": "nosniff",
        },
      };
    } catch (error) {
      if (error instanceof IconFetchError) throw new HttpError(error.status, error.message);
      throw error;
    }
  },
});

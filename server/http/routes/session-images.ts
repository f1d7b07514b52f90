// GET /api/sessions/:id/messages/:messageId/images/:index: a chat image, fetched by the server, so the
// operator's browser never contacts the platform's image hosts (and the page CSP stays 'self'). Only
// URLs a stored message carries are fetched: nobody can name an arbitrary URL (no open proxy).
import { chatImageParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { notFound } from "../errors";
import { fetchedImageReply, imageReply } from "../image-reply";
import type { ApiContext } from "../context";
import { mediaRefSchema } from "../../../lib/api/bundle";

export const chatImageRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/messages/:messageId/images/:index",
  params: chatImageParamsSchema,
  async handle({ params }, ctx) {
    const session = await ctx.sessions.require(params.id);
    // An imported session has no stored messages: its images came with its bundle.
    if (session.imported) return importedImageReply(ctx, session.id, params.messageId, params.index);
    const message = await ctx.engine.stores.messages.get(session.id, params.messageId);
    if (!message) throw notFound(`message ${params.messageId}`);
    const url = message.images?.[params.index]?.url;
    if (!url || !/^https?:\/\//i.test(url)) throw notFound(`image ${params.index} of message ${params.messageId}`);
    return fetchedImageReply(() => ctx.chatImages.fetchSource(url), 86_400);
  },
});

async function importedImageReply(ctx: ApiContext, sessionId: string, messageId: string, index: number) {
  for (const media of await ctx.bundles.export.importedMedia.list(sessionId)) {
    const refs = mediaRefSchema.array().parse(JSON.parse(media.refs));
    if (refs.some((r) => r.type === "chat_image" && r.messageId === messageId && r.index === index))
      return imageReply({ bytes: media.bytes, contentType: media.contentType }, 86_400);
  }
  throw notFound(`image ${index} of message ${messageId}`);
}

// An image of a chat message, defined once for the message record, the history window and the events.
import { z } from "zod";

/** Where it can be fetched (url), or the implementation's file name. */
export const chatImageSchema = z.object({ url: z.string().optional(), file: z.string().optional() });
export type ChatImage = z.infer<typeof chatImageSchema>;

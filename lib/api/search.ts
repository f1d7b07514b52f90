// GET /api/search (docs/interface.md#usage-search-export): full text over what the ledger recorded,
// across sessions. Query and answer shapes shared by the server, the search page and the tests.
import { z } from "zod";
import { idSchema, instantSchema } from "./schemas";

/** What a hit is: a chat message, the planner's text, the timing gate's reasoning, a tool call or its result, a failure. */
export const searchKindSchema = z.enum(["message", "planner", "gate", "tool_call", "tool_result", "error"]);
export type SearchKind = z.infer<typeof searchKindSchema>;

export const MAX_SEARCH_QUERY_CHARS = 200;
export const MAX_SEARCH_LIMIT = 200;

const flagSchema = z.enum(["1", "0", "true", "false"]).transform((v) => v === "1" || v === "true");

export const searchQuerySchema = z
  .object({
    q: z.string().trim().min(1, "q is empty").max(MAX_SEARCH_QUERY_CHARS),
    sessionId: idSchema.optional(),
    kind: searchKindSchema.optional(),
    from: instantSchema.optional(),
    to: instantSchema.optional(),
    /** Hits in cycles that ended so (cycle.end's endReason). */
    endReason: z.string().trim().min(1).max(64).optional(),
    /** Tool calls and results of this tool. */
    tool: z.string().trim().min(1).max(128).optional(),
    /** Only failures (a failed tool, a model error, an undelivered message, a cycle that ended in an error), or none. */
    failed: flagSchema.optional(),
    /** Hits in cycles whose gate or planner ran on this model. */
    model: z.string().trim().min(1).max(128).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(50),
    /** Paging: the `next` of the previous page (hits come newest first; an opaque position, may be negative). */
    before: z.coerce.number().int().optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: "from must not be after to",
    path: ["from"],
  });
export type SearchQuery = z.infer<typeof searchQuerySchema>;

export const searchHitSchema = z.object({
  sessionId: z.string(),
  seq: z.number().int(),
  cycleId: z.string().optional(),
  kind: searchKindSchema,
  /** Plain text around the match; `marks` are [start, end) offsets (UTF-16) of the matched parts in it. */
  snippet: z.string(),
  marks: z.array(z.tuple([z.number().int(), z.number().int()])),
  ts: z.number(),
  tool: z.string().optional(),
  failed: z.boolean(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchResultSchema = z.object({
  hits: z.array(searchHitSchema),
  /** Pass as `before` for the next (older) page; absent when there is none. */
  next: z.number().int().optional(),
  /** Events the index has not reached yet (it catches up in the background). */
  behind: z.number().int(),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

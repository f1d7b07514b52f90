// The session export bundle (GET /api/sessions/:id/export, POST /api/sessions/import): NDJSON, one
// JSON object a line. A header first, then every event in seq order, then the session's last snapshot
// (when it has one), its recorded model calls and tool records (version 2: what a re-run answers from),
// the media the events reference, then an end line with the counts (a bundle cut short has none and is
// refused). Version 1 bundles (no model calls, tool records or origin) still import.
import { z } from "zod";
import { runtimeSnapshotSchema } from "../chat/runtime-snapshot";
import { monitorEventSchema } from "../events/schemas";
import { modelCallSchema } from "../rerun/cassette";
import { sessionOriginSchema } from "../rerun/schemas";
import { jsonObjectSchema, toolExecutionResultSchema } from "../tools/schemas";
import { idSchema } from "./schemas";

export const BUNDLE_SCHEMA_VERSION = 2;
/** Versions import reads: 1 predates the model-call and tool-record lines and the origin. */
export const READABLE_BUNDLE_VERSIONS = [1, 2] as const;
export const BUNDLE_CONTENT_TYPE = "application/x-ndjson";

export const bundleSessionSchema = z.object({
  /** A session id as every route takes it (an export never has another kind). */
  id: idSchema,
  name: z.string(),
  isGroupChat: z.boolean(),
  platform: z.string(),
  groupId: z.string().nullable(),
  userId: z.string().nullable(),
  createdAt: z.number(),
  lastActiveAt: z.number(),
  /** A re-run or fork: where it came from (the imported copy keeps it, so it can be re-run again). */
  origin: sessionOriginSchema.optional(),
});

export const bundleHeaderSchema = z.object({
  kind: z.literal("header"),
  schemaVersion: z.literal(READABLE_BUNDLE_VERSIONS),
  session: bundleSessionSchema,
  /** Events that follow (the session's last seq: seqs have no gaps). */
  counts: z.object({ events: z.number().int().min(0) }),
  /** Epoch ms. */
  exportedAt: z.number(),
});
export type BundleHeader = z.infer<typeof bundleHeaderSchema>;

export const bundleEventSchema = z.object({ kind: z.literal("event"), event: monitorEventSchema });

/**
 * The session's last saved runtime snapshot (history window, counts), at most one, after the events:
 * the imported session's history and list counts come from it.
 */
export const bundleSnapshotSchema = z.object({
  kind: z.literal("snapshot"),
  ts: z.number(),
  state: runtimeSnapshotSchema,
});
export type BundleSnapshot = z.infer<typeof bundleSnapshotSchema>;

/** One recorded model call (lib/rerun/cassette.ts), without the ids the importing database gives it. */
export const bundleModelCallSchema = z.object({
  kind: z.literal("model_call"),
  call: modelCallSchema.omit({ id: true, sessionId: true }),
});
export type BundleModelCall = z.infer<typeof bundleModelCallSchema>;

/** One tool invocation of the session (server/stores/tool-records.ts ToolRecord), its whole result included. */
export const bundleToolRecordSchema = z.object({
  kind: z.literal("tool_record"),
  record: z.object({
    cycleId: z.string(),
    callId: z.string(),
    toolName: z.string(),
    providerName: z.string(),
    providerType: z.string(),
    arguments: jsonObjectSchema,
    success: z.boolean(),
    content: z.string(),
    errorMessage: z.string(),
    structuredContent: z.unknown().optional(),
    result: toolExecutionResultSchema.optional(),
    reasoning: z.string(),
    durationMs: z.number(),
    ts: z.number(),
  }),
});
export type BundleToolRecord = z.infer<typeof bundleToolRecordSchema>;

/** Where an event names a medium: a chat message's image, or an emoji the bot sent. */
export const mediaRefSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("chat_image"), messageId: z.string(), index: z.number().int().min(0), url: z.string() }),
  z.object({ type: z.literal("emoji"), file: z.string() }),
]);
export type MediaRef = z.infer<typeof mediaRefSchema>;

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const bundleMediaSchema = z.object({
  kind: z.literal("media"),
  /** SHA-256 of the bytes, hex: checked on import. */
  hash: z.string().regex(SHA256_HEX),
  contentType: z.string().regex(/^image\/[a-z0-9.+-]+$/),
  /** The bytes, base64 (standard alphabet, padded). */
  data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
  refs: z.array(mediaRefSchema).min(1),
});
export type BundleMedia = z.infer<typeof bundleMediaSchema>;

export const bundleEndSchema = z.object({
  kind: z.literal("end"),
  events: z.number().int().min(0),
  media: z.number().int().min(0),
  /** Media the events reference that could not be read at export time (an expired chat image). */
  missingMedia: z.number().int().min(0),
  /** Version 2 on (absent in version 1: none). */
  modelCalls: z.number().int().min(0).default(0),
  toolRecords: z.number().int().min(0).default(0),
});
export type BundleEnd = z.infer<typeof bundleEndSchema>;

/** Any line after the header. */
export const bundleLineSchema = z.discriminatedUnion("kind", [
  bundleEventSchema,
  bundleSnapshotSchema,
  bundleModelCallSchema,
  bundleToolRecordSchema,
  bundleMediaSchema,
  bundleEndSchema,
]);
export type BundleLine = z.infer<typeof bundleLineSchema>;

/** What POST /api/sessions/import answers. */
export const importedSessionSchema = z.object({ id: z.string(), events: z.number().int(), media: z.number().int() });
export type ImportedSession = z.infer<typeof importedSessionSchema>;

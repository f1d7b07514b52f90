// A chat message as the engine caches it, and the runtime snapshot saved for restart recovery
// (docs/engine-rules.md#restart-recovery): defined once, written by the engine, parsed on restore and read by the API.
import { z } from "zod";
import { agentStateSchema } from "../events/schemas";
import { chatImageSchema } from "./images";
import { historyMessageSchema } from "./history";

const chatMessageRecordSchema = z.object({
  sessionId: z.string(),
  messageId: z.string(),
  direction: z.enum(["inbound", "outbound"]),
  userId: z.string(),
  userName: z.string(),
  groupCard: z.string().optional(),
  text: z.string(),
  /** Forwarded/complex message: the full list of inner messages. */
  forward: z.array(z.object({ sender: z.string(), text: z.string() })).optional(),
  atBot: z.boolean().optional(),
  mentionsBot: z.boolean().optional(),
  replyTo: z.string().nullable().optional(),
  kind: z.enum(["text", "emoji"]).optional(),
  /** The chat platform it came from (absent: the API or the dashboard). */
  platform: z.string().optional(),
  images: z.array(chatImageSchema).optional(),
  /** Recalled on the platform: still shown, no longer in the models' context. */
  recalled: z.boolean().optional(),
  ts: z.number(),
});
export type ChatMessageRecord = z.infer<typeof chatMessageRecordSchema>;

/** version, history and pending are required; the rest default to a fresh runtime's values (see the marks). */
export const runtimeSnapshotSchema = z.object({
  version: z.literal(1),
  agentState: agentStateSchema.default("stop"),
  history: z.array(historyMessageSchema),
  /** Messages registered but not yet taken into a turn. */
  pending: z.array(chatMessageRecordSchema),
  /** The timing gate's armed wait: its call and when it ends. */
  wait: z.object({ callId: z.string(), deadline: z.number() }).nullable().default(null),
  previousPlannerText: z.string().default(""),
  /** Reply-latency samples for idle compensation. */
  latency: z.array(z.object({ at: z.number(), latencyMs: z.number() })).default([]),
  cycleCounter: z.number().int().nonnegative().default(0),
  forceContinue: z.boolean().default(false),
  // Recovery marks (server/engine/recovery.ts). Absent in snapshots written before they existed:
  // recovery then derives them from the store, so they have no default here.
  /** The session's last event seq when the state was taken; written once the ledger holds it. */
  coveredSeq: z.number().int().nonnegative().optional(),
  /** Highest message store position registered (inbound messages after it are unknown to the state). */
  messageCursor: z.number().int().nonnegative().optional(),
  /** Pending message ids whose message.ingested is already in the ledger. */
  announced: z.array(z.string()).default([]),
  /** Chat message ids in the history window that learning already went over (not learned twice). */
  learned: z.array(z.string()).default([]),
});
export type RuntimeSnapshotState = z.infer<typeof runtimeSnapshotSchema>;

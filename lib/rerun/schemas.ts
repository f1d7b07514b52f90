// Wire shapes of re-runs and what-if forks (docs/interface.md#cluster-rerun): POST /api/sessions/:id/rerun,
// the divergence it answers, and the origin a derived session keeps.
import { z } from "zod";
import { MAX_PROMPT_CHARS } from "../api/settings";
import { modelTaskSchema } from "../llm/messages";

/** A change made at the fork point. */
export const forkEditSchema = z.discriminatedUnion("kind", [
  /** The message never arrives (dropped from the context). */
  z.object({ kind: z.literal("drop_message"), messageId: z.string().min(1).max(200) }),
  /** A message that never was: arrives just before the fork's cycle (or at `at`, engine clock ms). */
  z.object({
    kind: z.literal("add_message"),
    userId: z.string().min(1).max(200),
    userName: z.string().min(1).max(200),
    text: z.string().min(1).max(20_000),
    atBot: z.boolean().optional(),
    mentionsBot: z.boolean().optional(),
    at: z.number().optional(),
  }),
  /** The recorded result of one tool call replaced. */
  z.object({
    kind: z.literal("tool_output"),
    toolCallId: z.string().min(1).max(200),
    content: z.string().max(100_000),
    success: z.boolean().default(true),
  }),
  /** A tool switched off from the fork's cycle on. */
  z.object({ kind: z.literal("tool_off"), toolName: z.string().min(1).max(200) }),
]);
export type ForkEdit = z.infer<typeof forkEditSchema>;

/**
 * Settings a re-run uses instead of the current ones, from its fork cycle on: a section's keys laid
 * over the current section and checked with the config's schema; in prompts, null removes an override.
 */
export const rerunSettingsSchema = z
  .object({
    bot: z.record(z.string(), z.unknown()).optional(),
    chat: z.record(z.string(), z.unknown()).optional(),
    prompts: z.record(z.string(), z.string().max(MAX_PROMPT_CHARS).nullable()).optional(),
  })
  .strict();
export type RerunSettings = z.infer<typeof rerunSettingsSchema>;

/** What answers a model call once the run has left the recording: nothing (the run ends there), or a model. */
export const continueWithSchema = z.enum(["stop", "model", "simulated"]);
export type ContinueWith = z.infer<typeof continueWithSchema>;

export const rerunRequestSchema = z
  .object({
    /** The original's cycle id: calls before it are answered from the recording as they were. */
    fromCycle: z.string().min(1).max(200).optional(),
    settings: rerunSettingsSchema.optional(),
    /** Non-empty: a what-if fork (needs fromCycle). */
    edits: z.array(forkEditSchema).max(50).optional(),
    /** Default: "stop" for a re-run, "model" for a fork. */
    continueWith: continueWithSchema.optional(),
    /** Read-only tools (readOnlyHint true) run live instead of answering from the recording. */
    liveReadOnlyTools: z.boolean().optional(),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type RerunRequest = z.infer<typeof rerunRequestSchema>;

export const divergenceKindSchema = z.enum([
  /** A model request differs from the recorded one (matching rule: docs/rerun.md). */
  "request",
  /** The gate decided otherwise. */
  "gate_action",
  /** The planner's text or tool calls differ. */
  "planner",
  /** A tool call's result differs. */
  "tool_result",
  /** The bot said something else (message.sent). */
  "message",
  /** The cycle ended for another reason. */
  "end_reason",
  /** The original had this cycle; the re-run never got there. */
  "missing_cycle",
  /** The re-run ran a cycle the original did not have. */
  "extra_cycle",
]);
export type DivergenceKind = z.infer<typeof divergenceKindSchema>;

export const divergenceSchema = z.object({
  /** The original's cycle where it happened ("" when the original had none there). */
  cycleId: z.string(),
  /** The re-run's cycle at that point (null when it had none). */
  rerunCycleId: z.string().nullable(),
  /** 0-based position of that cycle in the session. */
  cycleIndex: z.number().int().min(0),
  kind: divergenceKindSchema,
  task: modelTaskSchema.optional(),
  /** Where the two differ: "messages[3].content", "tools", "action", … */
  path: z.string().optional(),
  expected: z.unknown(),
  actual: z.unknown(),
  /** A request that diverged and was answered by a model: the decision taken, against the original's. */
  consequence: z.object({ kind: divergenceKindSchema, expected: z.unknown(), actual: z.unknown() }).optional(),
});
export type Divergence = z.infer<typeof divergenceSchema>;

export const rerunStatsSchema = z.object({
  originalCycles: z.number().int(),
  rerunCycles: z.number().int(),
  /** Model calls answered from the recording. */
  replayedCalls: z.number().int(),
  /** Model calls answered by a model (after the divergence). */
  liveCalls: z.number().int(),
  /** Tool calls answered from the recording; run live (read-only tools, when asked); answered by the engine's
   * own builtin steps run again (reply, wait, finish, …). */
  replayedTools: z.number().int(),
  liveTools: z.number().int(),
  engineSteps: z.number().int().default(0),
  durationMs: z.number(),
});
export type RerunStats = z.infer<typeof rerunStatsSchema>;

export const rerunResponseSchema = z.object({
  id: z.string(),
  divergence: divergenceSchema.nullable(),
  stats: rerunStatsSchema,
});
export type RerunResponse = z.infer<typeof rerunResponseSchema>;

/** What a derived session (a re-run or a fork) keeps of where it came from; absent on every other session. */
export const sessionOriginSchema = z.object({
  kind: z.enum(["rerun", "fork"]),
  sessionId: z.string(),
  fromCycle: z.string().nullable(),
  at: z.number(),
  /** The account that started it. */
  actor: z.string(),
  edits: z.array(forkEditSchema),
  settings: rerunSettingsSchema.nullable(),
  continueWith: continueWithSchema,
  /** Null: reproduced the original (up to where it stopped); absent while it runs. */
  divergence: divergenceSchema.nullable().optional(),
  stats: rerunStatsSchema.optional(),
});
export type SessionOrigin = z.infer<typeof sessionOriginSchema>;

/** GET /api/sessions/:id/branches: the sessions derived from this one, newest first. */
export const sessionBranchSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  origin: sessionOriginSchema,
});
export const sessionBranchesResponseSchema = z.object({ branches: z.array(sessionBranchSchema) });
export type SessionBranch = z.infer<typeof sessionBranchSchema>;
export type SessionBranchesResponse = z.infer<typeof sessionBranchesResponseSchema>;

// Monitor events (docs/engine-rules.md#monitor-events): one discriminated union used to emit, persist, stream and render.
import { z } from "zod";
import { chatImageSchema } from "../chat/images";
import { llmMessageSchema } from "../llm/messages";
import { llmToolDefinitionSchema } from "../tools/schemas";
import { usageTotalsSchema } from "../usage/pricing";

export const agentStateSchema = z.enum(["running", "wait", "stop"]);
export type AgentState = z.infer<typeof agentStateSchema>;

export const endReasonSchema = z.union([
  z.enum([
    "continue",
    "tool_continue",
    "timing_wait",
    "timing_no_action",
    "finish",
    "empty_planner_response",
    "planner_interrupted",
    "max_rounds",
    "llm_error",
  ]),
  z.string().regex(/^tool_pause:.+$/),
]);
export type EndReason = z.infer<typeof endReasonSchema>;

export const timingActionSchema = z.enum(["continue", "no_action", "wait"]);
export type TimingAction = z.infer<typeof timingActionSchema>;

/** A tool call as shown to operators: arguments parsed when they were valid JSON. */
export const monitorToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  argumentsRaw: z.string().optional(),
});
export type MonitorToolCall = z.infer<typeof monitorToolCallSchema>;

export const timeRecordsSchema = z.record(z.string(), z.number());

const sessionStartData = z.object({
  sessionId: z.string(),
  sessionName: z.string(),
  isGroupChat: z.boolean(),
  groupId: z.string().nullable(),
  userId: z.string().nullable(),
  platform: z.string(),
});

const sessionStopData = z.object({ reason: z.string() });

/**
 * What the runtime is doing (stage.status). Display names per locale live in lib/i18n/stages.ts;
 * the tool stage carries the tool's name in `detail`, the cooldown its length.
 */
export const stageIdSchema = z.enum([
  "idle",
  "collecting",
  "timing_gate",
  "planner",
  "planner_interrupted",
  "tool",
  "cooldown",
  "waiting",
]);
export type StageId = z.infer<typeof stageIdSchema>;

/** Stage names the engine emitted before stage ids existed: ledgers written then still replay. */
const legacyStageIds: Record<string, StageId> = {
  空闲: "idle",
  消息整理: "collecting",
  "Timing Gate": "timing_gate",
  Planner: "planner",
  "Planner 已打断": "planner_interrupted",
  冷却: "cooldown",
  等待消息: "waiting",
};
const LEGACY_TOOL_STAGE = "工具执行 · ";

function upgradeLegacyStage(value: unknown): unknown {
  if (!value || typeof value !== "object" || !("stage" in value) || typeof value.stage !== "string") return value;
  const { stage } = value;
  if (Object.hasOwn(legacyStageIds, stage)) return { ...value, stage: legacyStageIds[stage] };
  if (stage.startsWith(LEGACY_TOOL_STAGE))
    return { ...value, stage: "tool", detail: stage.slice(LEGACY_TOOL_STAGE.length) };
  return value;
}

const stageStatusData = z.preprocess(
  upgradeLegacyStage,
  z.object({
    stage: stageIdSchema,
    detail: z.string(),
    roundText: z.string(),
    agentState: agentStateSchema,
    stageStartedAt: z.number(),
  }),
);

const messageIngestedData = z.object({
  speakerName: z.string(),
  userId: z.string().optional(),
  content: z.string(),
  messageId: z.string(),
  /** When the message itself arrived (the event's ts is when a turn took it); absent in older events. */
  at: z.number().optional(),
  atBot: z.boolean().optional(),
  mentionsBot: z.boolean().optional(),
  /** The chat platform it came from ("qq" for OneBot); absent for the API and the dashboard's chat box. */
  platform: z.string().optional(),
  images: z.array(chatImageSchema).optional(),
  replyTo: z.string().nullable().optional(),
});

export const pendingReasonSchema = z.enum(["threshold", "cooldown", "wait", "running", "debounce"]);
export type PendingReason = z.infer<typeof pendingReasonSchema>;

/**
 * An inbound message registered but not yet taken by a turn (docs/interface.md#events), with why it
 * waits; it carries what the live view shows at arrival. message.ingested follows when a turn takes it.
 */
export const messagePendingDataSchema = z.object({
  messageId: z.string(),
  reason: pendingReasonSchema,
  /** Distinct pending messages, this one included. */
  pending: z.number().int(),
  /** Messages a turn needs (reason threshold). */
  threshold: z.number().int().optional(),
  /** Until the gate ends (cooldown, wait, debounce) or idle compensation triggers (threshold); 0: at once. */
  etaMs: z.number().optional(),
  /** A turn is running (reason running): whether this message aborts its in-flight planner request. */
  interruptsPlanner: z.boolean().optional(),
  /** The threshold is bypassed: an @ of the bot or a mention by name. */
  forcedBy: z.enum(["at", "mention"]).optional(),
  speakerName: z.string(),
  userId: z.string().optional(),
  content: z.string(),
  platform: z.string().optional(),
  images: z.array(chatImageSchema).optional(),
});
export type MessagePendingData = z.infer<typeof messagePendingDataSchema>;

const messageSentData = z.object({
  content: z.string(),
  messageId: z.string(),
  replyTo: z.string().nullable(),
  kind: z.enum(["text", "emoji"]).optional(),
  /** kind "emoji": the emoji library's file it sent (so an export bundle can carry the image). */
  emojiFile: z.string().optional(),
});

const cycleStartData = z.object({
  cycleId: z.string(),
  roundIndex: z.number().int(),
  maxRounds: z.number().int(),
  historyCount: z.number().int(),
});

/**
 * Which endpoint and model answered a model call: the task's first target, or a fallback once it failed
 * (absent in events written before it, and for model clients that name no endpoint).
 */
export const modelAnswerSchema = z.object({
  /** The configured endpoint's name. */
  endpoint: z.string(),
  /** The model asked of that endpoint. */
  model: z.string(),
  /** The model the provider said answered, when it named another (a dated version, a router's pick). */
  responseModel: z.string().optional(),
  /** True: the task's first target failed and this fallback answered. */
  fallback: z.boolean().optional(),
});
export type ModelAnswer = z.infer<typeof modelAnswerSchema>;

export const timingGateResultDataSchema = z.object({
  cycleId: z.string(),
  action: timingActionSchema,
  content: z.string(),
  toolCalls: z.array(monitorToolCallSchema),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  durationMs: z.number(),
  selectedHistoryCount: z.number().int(),
  /** Messages the gate model was given (system prompt, selected context, retry hints). */
  promptMessageCount: z.number().int().optional(),
  /** no_action: the cooldown that follows. */
  cooldownMs: z.number().optional(),
  /** wait: the seconds it waits. */
  waitSeconds: z.number().optional(),
  forced: z.boolean().optional(),
  attempts: z.number().int().optional(),
  /** The thinking model's reasoning for its decision (absent when it gave none). */
  reasoningContent: z.string().optional(),
  /** Who answered the gate's last attempt. */
  answeredBy: modelAnswerSchema.optional(),
});
export type TimingGateResultData = z.infer<typeof timingGateResultDataSchema>;

const plannerInterruptedData = z.object({ cycleId: z.string(), pendingMessages: z.number().int() });

export const toolExecutionDataSchema = z.object({
  cycleId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  toolTitle: z.string(),
  args: z.record(z.string(), z.unknown()),
  success: z.boolean(),
  durationMs: z.number(),
  summary: z.string(),
  providerName: z.string().optional(),
  result: z.string().optional(),
});
export type ToolExecutionData = z.infer<typeof toolExecutionDataSchema>;

/**
 * The prompt templates a request was built from: the live settings' version its turn started with, the
 * templates overridden then (names) and a hash of those overrides (absent in events written before it).
 */
export const promptVersionSchema = z.object({
  settingsVersion: z.number().int(),
  overrides: z.array(z.string()),
  hash: z.string(),
});
export type PromptVersion = z.infer<typeof promptVersionSchema>;

/** A request as sent to the model: exact messages and tool definitions. */
export const modelRequestSchema = z.object({
  model: z.string(),
  messages: z.array(llmMessageSchema),
  tools: z.array(llmToolDefinitionSchema),
  maxTokens: z.number().int().nullable(),
  selectedHistoryCount: z.number().int(),
  promptVersion: promptVersionSchema.optional(),
});
export type ModelRequest = z.infer<typeof modelRequestSchema>;

/** Tools that existed but were not offered, and why. */
export const withheldToolSchema = z.object({
  name: z.string(),
  reason: z.enum(["deferred", "hidden", "disabled", "timing_only", "duplicate"]),
});

export const plannerFinalizedDataSchema = z.object({
  cycleId: z.string(),
  roundIndex: z.number().int(),
  timingGate: z
    .object({
      request: modelRequestSchema.nullable(),
      result: timingGateResultDataSchema,
    })
    .nullable(),
  request: modelRequestSchema.nullable(),
  withheldTools: z.array(withheldToolSchema),
  planner: z
    .object({
      content: z.string(),
      reasoningContent: z.string(),
      toolCalls: z.array(monitorToolCallSchema),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
      totalTokens: z.number().int(),
      durationMs: z.number(),
      dedupReplaced: z.boolean(),
      answeredBy: modelAnswerSchema.optional(),
    })
    .nullable(),
  tools: z.array(toolExecutionDataSchema),
  interrupted: z.boolean(),
  finalState: z.object({
    agentState: agentStateSchema,
    endReason: endReasonSchema,
    timeRecords: timeRecordsSchema,
    error: z.string().optional(),
  }),
  /** Every model call of the cycle (gate, planner, replyer, emoji); absent in events written before it. */
  usage: usageTotalsSchema.optional(),
});
export type PlannerFinalizedData = z.infer<typeof plannerFinalizedDataSchema>;

const cycleEndData = z.object({
  cycleId: z.string(),
  timeRecords: timeRecordsSchema,
  agentState: agentStateSchema,
  endReason: endReasonSchema,
  usage: usageTotalsSchema.optional(),
});

const llmProblemData = z.object({
  task: z.string(),
  model: z.string(),
  /** The configured endpoint's name (absent from ledgers written before endpoints existed). */
  endpoint: z.string().optional(),
  attempt: z.number().int(),
  error: z.string(),
  status: z.number().int().optional(),
  delayMs: z.number().optional(),
});

const toolToggledData = z.object({
  toolName: z.string(),
  scope: z.enum(["global", "session"]),
  sessionId: z.string().optional(),
  enabled: z.boolean(),
  actor: z.string(),
  reason: z.string(),
  auditId: z.string(),
});

const messageSendFailedData = z.object({
  /** The bot message that was not delivered (absent when it failed before it had one). */
  messageId: z.string().optional(),
  /** Where it was going: "group:<id>" or "private:<id>". */
  target: z.string(),
  error: z.string(),
});

const messageRecalledData = z.object({ messageId: z.string() });

const operatorActionData = z.object({
  actor: z.string(),
  /** e.g. "message.send" (a message sent as the bot), "tool.invoke", "settings.change". */
  action: z.string(),
  target: z.string(),
  detail: z.record(z.string(), z.unknown()),
});

const platformConnectionData = z.object({
  platform: z.string(),
  selfId: z.string(),
  mode: z.enum(["reverse", "forward"]),
  role: z.enum(["Universal", "API", "Event"]).optional(),
  reason: z.string().optional(),
});

/**
 * A friend request or group invitation a bot received, under the policy platforms.onebot.requests
 * ("notify" or "approve"; "ignore" records none). Written to the platform stream.
 */
export const platformRequestData = z.object({
  platform: z.string(),
  selfId: z.string(),
  /** friend: to be the bot's friend; group: to join a group (subType "add") or the bot invited into one ("invite"). */
  kind: z.enum(["friend", "group"]),
  subType: z.string().optional(),
  userId: z.string(),
  groupId: z.string().optional(),
  /** The requester's own words (untrusted text). */
  comment: z.string(),
  /** The implementation's handle of the request (set_friend_add_request / set_group_add_request take it). */
  flag: z.string(),
  policy: z.enum(["notify", "approve"]),
  /** pending: left to the operator (notify, or not approved: see detail); approved; failed: the approval was refused. */
  outcome: z.enum(["pending", "approved", "failed"]),
  /** Why it was not approved, or what the implementation answered. */
  detail: z.string().optional(),
});
export type PlatformRequestData = z.infer<typeof platformRequestData>;

/** Today's model cost (UTC day) went over a daily budget (config models.budgets); once per day and scope. */
export const usageBudgetCrossedData = z.object({
  /** "overall": every endpoint together; "endpoint": the one named. */
  scope: z.enum(["overall", "endpoint"]),
  endpoint: z.string().optional(),
  limitUsd: z.number(),
  spentUsd: z.number(),
  /** The UTC day, YYYY-MM-DD. */
  day: z.string(),
});

export const eventDataSchemas = {
  "session.start": sessionStartData,
  "session.stop": sessionStopData,
  "stage.status": stageStatusData,
  "message.ingested": messageIngestedData,
  "message.sent": messageSentData,
  "message.pending": messagePendingDataSchema,
  "cycle.start": cycleStartData,
  "timing_gate.result": timingGateResultDataSchema,
  "planner.interrupted": plannerInterruptedData,
  "tool.execution": toolExecutionDataSchema,
  "planner.finalized": plannerFinalizedDataSchema,
  "cycle.end": cycleEndData,
  "llm.retry": llmProblemData,
  "llm.error": llmProblemData,
  "tool.toggled": toolToggledData,
  "message.send_failed": messageSendFailedData,
  "message.recalled": messageRecalledData,
  "operator.action": operatorActionData,
  "platform.connected": platformConnectionData,
  "platform.disconnected": platformConnectionData,
  "platform.request": platformRequestData,
  "usage.budget_crossed": usageBudgetCrossedData,
} as const;

export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

const envelopeBase = { seq: z.number().int().positive(), sessionId: z.string(), ts: z.number() };

function envelopeOf<T extends EventType>(type: T) {
  return z.object({ ...envelopeBase, type: z.literal(type), data: eventDataSchemas[type] });
}

export const monitorEventSchema = z.discriminatedUnion("type", [
  envelopeOf("session.start"),
  envelopeOf("session.stop"),
  envelopeOf("stage.status"),
  envelopeOf("message.ingested"),
  envelopeOf("message.sent"),
  envelopeOf("message.pending"),
  envelopeOf("cycle.start"),
  envelopeOf("timing_gate.result"),
  envelopeOf("planner.interrupted"),
  envelopeOf("tool.execution"),
  envelopeOf("planner.finalized"),
  envelopeOf("cycle.end"),
  envelopeOf("llm.retry"),
  envelopeOf("llm.error"),
  envelopeOf("tool.toggled"),
  envelopeOf("message.send_failed"),
  envelopeOf("message.recalled"),
  envelopeOf("operator.action"),
  envelopeOf("platform.connected"),
  envelopeOf("platform.disconnected"),
  envelopeOf("platform.request"),
  envelopeOf("usage.budget_crossed"),
]);
export type MonitorEvent = z.infer<typeof monitorEventSchema>;

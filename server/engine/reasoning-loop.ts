// One turn of the reasoning loop (docs/engine-rules.md#reasoning-loop): collect and ingest messages, then up to
// maxInternalRounds cycles of timing gate -> planner -> tools, each closed by planner.finalized and
// cycle.end with its end reason. The loop owns the agent state: every transition happens here,
// the gate, planner and tool executor only return outcomes.
import type { AgentState, EndReason, StageId } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../stores/messages";
import type { AssistantMessage, HistoryMessage } from "./context/messages";
import { newCycle, type CycleRecord } from "./cycle";
import { describeError } from "./errors";
import type { PlannerInterruptGuard } from "./interrupt-guard";
import { runPlanner, type PlannerMemory } from "./planner";
import { promptOptions, renderPrompt } from "./prompts/templates";
import { newUid, type SessionScope } from "./session-scope";
import { runTimingGate } from "./timing-gate";
import { executeToolCalls } from "./tool-executor";

type RoundResult = { endReason: EndReason; endTurn: boolean; interrupted?: boolean; cooldownMs?: number };

export interface TurnTrigger {
  messageTriggered: boolean;
  timeoutTriggered: boolean;
}

/** What the loop asks of the runtime around it (messages, timers, stage display). */
export interface LoopHost {
  readonly scope: SessionScope;
  readonly interrupts: PlannerInterruptGuard;
  stopped(): boolean;
  /** Takes the pending messages (deduped by id). */
  collectPending(): ChatMessageRecord[];
  pendingCount(): number;
  lastMessage(): ChatMessageRecord | null;
  takeForceContinue(): boolean;
  /** Consumes the recovery mark of a message already announced in the ledger (recovery.ts). */
  takeAnnounced(messageId: string): boolean;
  /** Waits for the chat to go quiet when messages came in during a run. */
  debounce(): Promise<void>;
  /** Sleeps on the engine clock; false when the runtime stopped meanwhile. */
  pause(ms: number): Promise<boolean>;
  armWait(callId: string, seconds: number): void;
  /** The armed wait's call id, if any; disarms it. */
  takeWait(): string | null;
  setStage(stage: StageId, detail?: string): void;
  setRoundText(roundText: string): void;
  syncProviders(): void;
  historyTrimmed(removed: HistoryMessage[]): void;
}

/** The loop's part of a saved runtime state. */
export interface LoopState {
  agentState: AgentState;
  cycleCounter: number;
  previousPlannerText: string;
}

export class ReasoningLoop {
  private agentState: AgentState = "stop";
  private cycleCounter = 0;
  /** When the cooldown after no_action ends (0: none running). */
  private cooldownEnd = 0;
  readonly planner: PlannerMemory = { previousText: "", toolView: null };

  constructor(private readonly host: LoopHost) {}

  get state(): AgentState {
    return this.agentState;
  }

  get cooldownUntil(): number {
    return this.cooldownEnd;
  }

  get cycles(): number {
    return this.cycleCounter;
  }

  saved(): LoopState {
    return {
      agentState: this.agentState,
      cycleCounter: this.cycleCounter,
      previousPlannerText: this.planner.previousText,
    };
  }

  /**
   * Before start: a wait comes back only with its timer (`waitArmed`); a running turn died with the
   * process (its messages are pending again, see recovery.ts).
   */
  restore(state: LoopState, waitArmed: boolean): void {
    this.cycleCounter = state.cycleCounter;
    this.planner.previousText = state.previousPlannerText;
    this.agentState = state.agentState === "wait" && waitArmed ? "wait" : "stop";
  }

  /** Runs one turn; a failure is logged and leaves the runtime idle. */
  async runTurn(trigger: TurnTrigger): Promise<void> {
    try {
      await this.turn(trigger);
    } catch (error) {
      // A stop aborts in-flight model calls: that is the stop, not a failure.
      if (!this.host.stopped()) {
        this.host.scope.deps.logger.error(
          `[engine] session ${this.host.scope.session.id}: turn failed: ${describeError(error)}`,
        );
      }
      if (this.agentState === "running") this.agentState = "stop";
    }
  }

  private async turn(trigger: TurnTrigger): Promise<void> {
    const host = this.host;
    const rt = host.scope;
    if (trigger.messageTriggered) {
      host.setStage("collecting");
      await host.debounce();
    }
    const waitCallId = trigger.timeoutTriggered ? host.takeWait() : null;
    const pending = host.collectPending();
    if (!pending.length && !waitCallId) {
      if (this.agentState === "wait") this.agentState = "stop";
      return;
    }
    this.agentState = "running";
    host.syncProviders();
    if (waitCallId) this.appendWaitResult(waitCallId, pending.length > 0);
    this.ingest(pending);
    let anchor = pending.at(-1) ?? host.lastMessage();

    const maxRounds = rt.deps.config.chat.maxInternalRounds;
    let gateRequired = true;
    let cooldownMs = 0;
    for (let round = 0; round < maxRounds && !host.stopped();) {
      const cycle = this.startCycle(round, maxRounds);
      const result = await this.runRound(cycle, gateRequired, anchor?.messageId ?? null);
      if (cycle.timingGate?.result.action === "continue") gateRequired = false;
      cooldownMs = result.cooldownMs ?? 0;
      if (!result.interrupted) round++;
      const outOfRounds = !result.endTurn && round >= maxRounds;
      this.finalize(cycle, outOfRounds ? "max_rounds" : result.endReason);
      if (result.interrupted) {
        // Re-enter the planner (no gate, round not counted) only with new input and rounds left.
        if (!host.pendingCount() || host.stopped()) break;
        await host.debounce();
        const more = host.collectPending();
        this.ingest(more);
        anchor = more.at(-1) ?? anchor;
        continue;
      }
      if (result.endTurn) break;
    }
    if (this.agentState === "running") this.agentState = "stop";
    if (cooldownMs > 0 && !host.stopped()) {
      this.cooldownEnd = rt.deps.clock.now() + cooldownMs;
      host.setStage("cooldown", `${Math.round(cooldownMs / 100) / 10}s`);
      try {
        await host.pause(cooldownMs);
      } finally {
        this.cooldownEnd = 0;
      }
    }
  }

  private startCycle(roundIndex: number, maxRounds: number): CycleRecord {
    const rt = this.host.scope;
    this.cycleCounter++;
    const cycle = newCycle(`c${this.cycleCounter}`, roundIndex, rt.deps.clock.now());
    rt.usage.begin(cycle.cycleId);
    this.host.setRoundText(`${roundIndex + 1}/${maxRounds}`);
    rt.deps.events.emit(rt.session.id, "cycle.start", {
      cycleId: cycle.cycleId,
      roundIndex,
      maxRounds,
      historyCount: rt.history.length,
    });
    return cycle;
  }

  private async runRound(
    cycle: CycleRecord,
    gateRequired: boolean,
    anchorMessageId: string | null,
  ): Promise<RoundResult> {
    const host = this.host;
    const rt = host.scope;
    if (gateRequired) {
      host.setStage("timing_gate");
      const gate = await runTimingGate(rt, cycle, host.takeForceContinue());
      if (gate.action === "wait") {
        this.agentState = "wait";
        host.armWait(gate.callId, gate.seconds);
        return { endReason: "timing_wait", endTurn: true };
      }
      if (gate.action === "no_action") {
        this.agentState = "stop";
        return { endReason: "timing_no_action", endTurn: true, cooldownMs: gate.cooldownMs };
      }
      if (gate.action === "llm_error") {
        cycle.error = gate.error;
        return { endReason: "llm_error", endTurn: true };
      }
    }

    host.setStage("planner");
    const planned = await runPlanner(rt, cycle, this.planner, host.interrupts);
    if (planned.kind === "interrupted") {
      cycle.interrupted = true;
      host.setStage("planner_interrupted");
      rt.deps.events.emit(rt.session.id, "planner.interrupted", {
        cycleId: cycle.cycleId,
        pendingMessages: host.pendingCount(),
      });
      // The planner learns its thought was cut off; the note does not count toward the window.
      rt.history.append({
        kind: "assistant",
        uid: newUid(),
        ts: rt.deps.clock.now(),
        source: "perception",
        content: renderPrompt("interrupt_note", {}, promptOptions(rt.deps.config)),
        toolCalls: [],
      });
      return { endReason: "planner_interrupted", endTurn: false, interrupted: true };
    }
    if (planned.kind === "llm_error") {
      cycle.error = planned.error;
      return { endReason: "llm_error", endTurn: true };
    }

    if (!planned.toolCalls.length && !planned.storedContent.trim()) {
      return { endReason: "empty_planner_response", endTurn: true };
    }
    const assistant: AssistantMessage = {
      kind: "assistant",
      uid: newUid(),
      ts: rt.deps.clock.now(),
      source: "assistant",
      content: planned.storedContent,
      reasoningContent: planned.reasoningContent || undefined,
      toolCalls: planned.toolCalls,
    };
    rt.history.append(assistant);
    if (!planned.toolCalls.length) return { endReason: "continue", endTurn: false };

    const batch = await executeToolCalls(
      rt,
      cycle,
      assistant,
      planned.exposed,
      planned.content,
      anchorMessageId,
      (name) => host.setStage("tool", name),
    );
    // A pausing tool ends the turn: idle until new messages.
    if (batch.pausedBy && this.agentState === "running") this.agentState = "stop";
    if (batch.pausedBy === "finish") return { endReason: "finish", endTurn: true };
    if (batch.pausedBy) return { endReason: `tool_pause:${batch.pausedBy}`, endTurn: true };
    return { endReason: "tool_continue", endTurn: false };
  }

  private finalize(cycle: CycleRecord, endReason: EndReason): void {
    const rt = this.host.scope;
    cycle.endReason = endReason;
    cycle.timeRecords.total = rt.deps.clock.now() - cycle.startedAt;
    const removed = rt.history.trim(rt.maxContextSize);
    const agentState = this.agentState;
    const usage = rt.usage.end();
    rt.deps.events.emit(rt.session.id, "planner.finalized", {
      cycleId: cycle.cycleId,
      roundIndex: cycle.roundIndex,
      timingGate: cycle.timingGate,
      request: cycle.request,
      withheldTools: cycle.withheldTools,
      planner: cycle.planner,
      tools: cycle.tools,
      interrupted: cycle.interrupted,
      finalState: {
        agentState,
        endReason,
        timeRecords: cycle.timeRecords,
        ...(cycle.error ? { error: cycle.error } : {}),
      },
      usage,
    });
    rt.deps.events.emit(rt.session.id, "cycle.end", {
      cycleId: cycle.cycleId,
      timeRecords: cycle.timeRecords,
      agentState,
      endReason,
      usage,
    });
    if (removed.length) this.host.historyTrimmed(removed);
  }

  private appendWaitResult(callId: string, newInput: boolean): void {
    const rt = this.host.scope;
    rt.history.append({
      kind: "tool_result",
      uid: newUid(),
      ts: rt.deps.clock.now(),
      toolCallId: callId,
      toolName: "wait",
      success: true,
      content: renderPrompt(newInput ? "wait_new_input" : "wait_timed_out", {}, promptOptions(rt.deps.config)),
      source: "timing_gate",
    });
  }

  private ingest(messages: ChatMessageRecord[]): void {
    const rt = this.host.scope;
    for (const m of messages) {
      // Recalled before its turn came: never in the models' context.
      if (m.recalled) continue;
      const base = {
        uid: newUid(),
        ts: m.ts,
        messageId: m.messageId,
        userId: m.userId,
        userName: m.userName,
        groupCard: m.groupCard,
      };
      if (m.forward?.length) {
        rt.history.append({ ...base, kind: "complex", preview: m.forward.slice(0, 4), total: m.forward.length });
      } else {
        const images = m.images?.length ? { images: m.images } : {};
        rt.history.append({ ...base, kind: "session", text: m.text, sourceKind: "user", ...images });
      }
      // Announced before a crash cut its turn (recovery.ts): into history again, not into the ledger.
      if (this.host.takeAnnounced(m.messageId)) continue;
      rt.deps.events.emit(rt.session.id, "message.ingested", {
        speakerName: m.groupCard || m.userName,
        userId: m.userId,
        content: m.text,
        messageId: m.messageId,
        at: m.ts,
        atBot: m.atBot ?? false,
        mentionsBot: m.mentionsBot ?? false,
        ...(m.platform !== undefined ? { platform: m.platform } : {}),
        ...(m.images?.length ? { images: m.images } : {}),
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
      });
    }
  }
}

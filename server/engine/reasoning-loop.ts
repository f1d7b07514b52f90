// One turn of the reasoning loop (engine.md section 3): collect and ingest messages, then up to
// maxInternalRounds cycles of timing gate -> planner -> tools, each closed by planner.finalized and
// cycle.end with its end reason.
import type { EndReason } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../stores/types";
import { trimHistory } from "./context/selection";
import type { AssistantMessage } from "./context/messages";
import { newCycle, type CycleRecord } from "./cycle";
import { runPlanner } from "./planner";
import { renderPrompt } from "./prompts/templates";
import type { SessionRuntime } from "./runtime";
import { newUid } from "./session-context";
import { runTimingGate } from "./timing-gate";
import { executeToolCalls } from "./tool-executor";

type RoundResult = { endReason: EndReason; endTurn: boolean; interrupted?: boolean; cooldownMs?: number };

export class ReasoningLoop {
  constructor(private readonly rt: SessionRuntime) {}

  async runTurn(trigger: { messageTriggered: boolean; timeoutTriggered: boolean }): Promise<void> {
    const rt = this.rt;
    if (trigger.messageTriggered) {
      rt.setStage("消息整理", "");
      await rt.debounce();
    }
    const waitCallId = trigger.timeoutTriggered ? rt.takePendingWait() : null;
    const pending = rt.collectPending();
    if (!pending.length && !waitCallId) {
      if (rt.agentState === "wait") rt.agentState = "stop";
      return;
    }
    rt.agentState = "running";
    rt.syncProviders();
    if (waitCallId) this.appendWaitResult(waitCallId, pending.length > 0);
    this.ingest(pending);
    let anchor = pending.at(-1) ?? rt.lastCachedMessage();

    const maxRounds = rt.deps.config.chat.maxInternalRounds;
    let gateRequired = true;
    let cooldownMs = 0;
    for (let round = 0; round < maxRounds && !rt.isStopped;) {
      const cycle = this.startCycle(round, maxRounds);
      const result = await this.runRound(cycle, gateRequired, anchor?.messageId ?? null);
      if (cycle.timingGate?.result.action === "continue") gateRequired = false;
      cooldownMs = result.cooldownMs ?? 0;
      if (!result.interrupted) round++;
      const outOfRounds = !result.endTurn && round >= maxRounds;
      this.finalize(cycle, outOfRounds ? "max_rounds" : result.endReason);
      if (result.interrupted) {
        // Re-enter the planner (no gate, round not counted) only with new input and rounds left.
        if (!rt.pendingMessages().length || rt.isStopped) break;
        await rt.debounce();
        const more = rt.collectPending();
        this.ingest(more);
        anchor = more.at(-1) ?? anchor;
        continue;
      }
      if (result.endTurn) break;
    }
    if (rt.agentState === "running") rt.agentState = "stop";
    if (cooldownMs > 0 && !rt.isStopped) {
      rt.setStage("冷却", `${Math.round(cooldownMs / 100) / 10}s`);
      await rt.pause(cooldownMs);
    }
  }

  private startCycle(roundIndex: number, maxRounds: number): CycleRecord {
    const rt = this.rt;
    rt.cycleCounter++;
    const cycle = newCycle(`c${rt.cycleCounter}`, roundIndex, rt.deps.clock.now());
    rt.stage.roundText = `${roundIndex + 1}/${maxRounds}`;
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
    const rt = this.rt;
    if (gateRequired) {
      rt.setStage("Timing Gate", "");
      const gate = await runTimingGate(rt, cycle);
      if (gate.action === "wait") {
        rt.enterWait(gate.callId, gate.seconds);
        return { endReason: "timing_wait", endTurn: true };
      }
      if (gate.action === "no_action")
        return { endReason: "timing_no_action", endTurn: true, cooldownMs: gate.cooldownMs };
      if (gate.action === "llm_error") {
        cycle.error = gate.error;
        return { endReason: "llm_error", endTurn: true };
      }
    }

    rt.setStage("Planner", "");
    const planned = await runPlanner(rt, cycle);
    if (planned.kind === "interrupted") {
      cycle.interrupted = true;
      rt.setStage("Planner 已打断", "");
      rt.deps.events.emit(rt.session.id, "planner.interrupted", {
        cycleId: cycle.cycleId,
        pendingMessages: rt.pendingMessages().length,
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
    rt.history.push(assistant);
    if (!planned.toolCalls.length) return { endReason: "continue", endTurn: false };

    const batch = await executeToolCalls(rt, cycle, assistant, planned.exposed, planned.content, anchorMessageId);
    // A pausing tool ends the turn: idle until new messages (a tool may have armed a wait instead).
    if (batch.pausedBy && rt.agentState === "running") rt.agentState = "stop";
    if (batch.pausedBy === "finish") return { endReason: "finish", endTurn: true };
    if (batch.pausedBy) return { endReason: `tool_pause:${batch.pausedBy}`, endTurn: true };
    return { endReason: "tool_continue", endTurn: false };
  }

  private finalize(cycle: CycleRecord, endReason: EndReason): void {
    const rt = this.rt;
    cycle.endReason = endReason;
    cycle.timeRecords.total = rt.deps.clock.now() - cycle.startedAt;
    const trimmed = trimHistory(rt.history, rt.maxContextSize);
    rt.history = trimmed.kept;
    const agentState = rt.agentState;
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
    });
    rt.deps.events.emit(rt.session.id, "cycle.end", {
      cycleId: cycle.cycleId,
      timeRecords: cycle.timeRecords,
      agentState,
      endReason,
    });
    if (trimmed.removed.length) rt.onHistoryTrimmed(trimmed.removed);
  }

  private appendWaitResult(callId: string, newInput: boolean): void {
    const rt = this.rt;
    const { config } = rt.deps;
    rt.history.push({
      kind: "tool_result",
      uid: newUid(),
      ts: rt.deps.clock.now(),
      toolCallId: callId,
      toolName: "wait",
      success: true,
      content: renderPrompt(
        newInput ? "wait_new_input" : "wait_timed_out",
        {},
        {
          locale: config.bot.locale,
          overrides: config.prompts,
        },
      ),
      source: "timing_gate",
    });
  }

  private ingest(messages: ChatMessageRecord[]): void {
    const rt = this.rt;
    for (const m of messages) {
      const base = {
        uid: newUid(),
        ts: m.ts,
        messageId: m.messageId,
        userId: m.userId,
        userName: m.userName,
        groupCard: m.groupCard,
      };
      if (m.forward?.length) {
        rt.history.push({ ...base, kind: "complex", preview: m.forward.slice(0, 4), total: m.forward.length });
      } else {
        rt.history.push({ ...base, kind: "session", text: m.text, sourceKind: "user" });
      }
      // Announced before a crash cut its turn (recovery.ts): into history again, not into the ledger.
      if (rt.takeAnnounced(m.messageId)) continue;
      rt.deps.events.emit(rt.session.id, "message.ingested", {
        speakerName: m.groupCard || m.userName,
        userId: m.userId,
        content: m.text,
        messageId: m.messageId,
        atBot: m.atBot ?? false,
        mentionsBot: m.mentionsBot ?? false,
      });
    }
  }
}

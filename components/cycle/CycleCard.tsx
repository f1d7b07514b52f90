"use client";
// One reasoning cycle: timing gate decision, planner text, every tool call, interruptions, end
// reason, tokens and timings. Sections keep their place while the cycle streams in, so the card
// grows downward only and nothing above it moves.
import { memo, useState, type ReactNode } from "react";
import type { ModelAnswer, MonitorToolCall, ToolExecutionData } from "../../lib/events/schemas";
import { formatClock, formatDuration, prettyJson, shortId } from "../../lib/client/format";
import { describeGateInput } from "../../lib/client/gate-view";
import type { CycleView } from "../../lib/client/timeline";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { cycleTokens } from "../../lib/client/usage";
import { endReasonLabel, gateActionLabel } from "../../lib/i18n/analytics";
import type { MessageKey, Translate } from "../../lib/i18n/messages";
import { ModelInputPanel } from "../model-input/ModelInputPanel";
import { Badge, type Tone } from "../ui/Badge";

const GATE_TONE: Record<string, Tone> = { continue: "ok", no_action: "muted", wait: "warn" };

/** The parts of a cycle's time the engine records (server/engine: timeRecords), by their own names. */
const TIMINGS = new Set(["timingGate", "planner", "toolCalls", "total"]);

function timingLabel(key: string, t: Translate): string {
  return TIMINGS.has(key) ? t(`cycle.timing.${key}` as MessageKey) : key;
}

function endTone(reason: string): Tone {
  if (reason === "llm_error" || reason === "empty_planner_response") return "bad";
  if (reason === "planner_interrupted" || reason === "max_rounds" || reason.startsWith("tool_pause")) return "warn";
  if (reason === "finish" || reason === "continue" || reason === "tool_continue") return "ok";
  return "muted";
}

interface Props {
  cycle: CycleView;
  selected?: boolean;
  expanded?: boolean;
  onToggleExpanded?: (key: string) => void;
  onSelect?: (key: string) => void;
  /** The replay's "Fork from this cycle" (absent elsewhere and for viewers). */
  onFork?: (cycle: CycleView) => void;
}

export const CycleCard = memo(function CycleCard({
  cycle,
  selected,
  expanded,
  onToggleExpanded,
  onSelect,
  onFork,
}: Props) {
  const f = cycle.finalized;
  const t = useT();
  const { locale } = useLocale();
  const end =
    cycle.end ??
    (f
      ? {
          endReason: f.finalState.endReason,
          timeRecords: f.finalState.timeRecords,
          agentState: f.finalState.agentState,
        }
      : null);
  const tokens = cycleTokens(cycle);
  const total = end?.timeRecords.total ?? cycle.lastTs - cycle.startTs;
  const round = cycle.start ? t("cycle.round", { round: cycle.start.roundIndex + 1, max: cycle.start.maxRounds }) : "";

  return (
    <article
      className={`cycle${selected ? " cycle-selected" : ""}${end ? "" : " cycle-running"}`}
      data-cycle-id={cycle.cycleId}
      data-testid="cycle-card"
      aria-label={t("cycle.label", { id: cycle.cycleId })}
      onClick={() => onSelect?.(cycle.key)}
    >
      <header className="cycle-head">
        <span className="cycle-id mono">{cycle.cycleId}</span>
        {round && <span className="muted">{round}</span>}
        <span className="muted">{formatClock(cycle.startTs)}</span>
        {cycle.start && (
          <span className="muted" data-testid="history-count">
            {t("cycle.historyCount", { count: cycle.start.historyCount })}
          </span>
        )}
        <span className="grow" />
        {end ? (
          <Badge tone={endTone(end.endReason)} title={t("cycle.endReason")} testId="end-reason">
            {endReasonLabel(end.endReason, locale)}
          </Badge>
        ) : (
          <Badge tone="info">{t("cycle.running")}</Badge>
        )}
        <span className="mono muted" title={t("cycle.duration")}>
          {formatDuration(total)}
        </span>
        {tokens > 0 && (
          <span className="mono muted" title={t("cycle.tokensTitle")}>
            {t("cycle.tokens", { count: tokens })}
          </span>
        )}
        {onFork && end && (
          <button
            type="button"
            className="btn btn-sm"
            onClick={(e) => {
              e.stopPropagation();
              onFork(cycle);
            }}
            title={t("rerun.forkHere")}
            data-testid="fork-cycle"
          >
            {t("rerun.fork")}
          </button>
        )}
      </header>

      <Section label={t("cycle.gate")}>
        {cycle.gate ? (
          <div className="gate" data-testid="gate-decision" data-action={cycle.gate.action}>
            <Badge tone={GATE_TONE[cycle.gate.action]} title={t(`cycle.gateHelp.${cycle.gate.action}`)}>
              {gateActionLabel(cycle.gate.action, locale)}
            </Badge>
            {cycle.gate.forced && (
              <Badge tone="muted" title={t("cycle.forcedTitle")}>
                {t("cycle.forced")}
              </Badge>
            )}
            <span className="mono muted">{formatDuration(cycle.gate.durationMs)}</span>
            {cycle.gate.promptTokens > 0 && (
              <span className="mono muted">
                {t("cycle.tokensInOut", {
                  prompt: cycle.gate.promptTokens,
                  completion: cycle.gate.completionTokens,
                })}
              </span>
            )}
            {cycle.gate.attempts !== undefined && cycle.gate.attempts > 1 && (
              <span className="muted">{t("cycle.attempts", { count: cycle.gate.attempts })}</span>
            )}
            <FallbackAnswer answer={cycle.gate.answeredBy} />
            <GateSaw gate={cycle.gate} />
            {cycle.gate.content && <div className="gate-reason text">{cycle.gate.content}</div>}
            {cycle.gate.reasoningContent && (
              <details className="reasoning">
                <summary>{t("cycle.reasoning")}</summary>
                <div className="text">{cycle.gate.reasoningContent}</div>
              </details>
            )}
          </div>
        ) : f && !f.timingGate ? (
          <span className="muted">{t("cycle.notConsulted")}</span>
        ) : (
          <span className="muted">{t(end ? "cycle.noGate" : "cycle.deciding")}</span>
        )}
      </Section>

      {(f?.planner || (!end && cycle.gate?.action !== "no_action" && cycle.gate?.action !== "wait")) && (
        <Section label={t("cycle.planner")}>
          {f?.planner ? (
            <div className="planner">
              <div className="text planner-text">
                {f.planner.content || <span className="muted">{t("cycle.toolCallsOnly")}</span>}
              </div>
              <div className="planner-meta mono muted">
                {formatDuration(f.planner.durationMs)} ·{" "}
                {t("cycle.tokensInOut", { prompt: f.planner.promptTokens, completion: f.planner.completionTokens })}
                {f.planner.dedupReplaced && t("cycle.dedup")} <FallbackAnswer answer={f.planner.answeredBy} />
              </div>
              {f.planner.reasoningContent && (
                <details className="reasoning">
                  <summary>{t("cycle.reasoning")}</summary>
                  <div className="text">{f.planner.reasoningContent}</div>
                </details>
              )}
            </div>
          ) : (
            <span className="muted">{t("cycle.thinking")}</span>
          )}
        </Section>
      )}

      {(cycle.tools.length > 0 || (f?.planner?.toolCalls.length ?? 0) > 0) && (
        <Section label={t("cycle.tools")}>
          <ToolCalls executions={cycle.tools} planned={f?.planner?.toolCalls ?? []} />
        </Section>
      )}

      {cycle.sent.length > 0 && (
        <Section label={t("cycle.said")}>
          {cycle.sent.map((m) => (
            <div key={m.seq} className="said text" data-testid="bot-reply">
              {m.data.kind === "emoji" ? <Badge tone="muted">{t("cycle.emoji")}</Badge> : null} {m.data.content}
              {m.data.replyTo && (
                <span className="muted mono small" title={t("cycle.replyTo", { id: m.data.replyTo })}>
                  {" "}
                  ↩ {shortId(m.data.replyTo)}
                </span>
              )}
            </div>
          ))}
        </Section>
      )}

      {(cycle.interrupted || f?.interrupted) && (
        <div className="cycle-alert warn" role="note">
          {t("cycle.interrupted", {
            why: cycle.interrupted
              ? t("cycle.newMessages", { count: cycle.interrupted.pendingMessages })
              : t("cycle.newMessagesArrived"),
          })}
        </div>
      )}
      {cycle.problems.map((p) => (
        <div key={p.seq} className={`cycle-alert ${p.type === "llm.error" ? "bad" : "warn"}`} role="note">
          {t(p.type === "llm.error" ? "cycle.modelError" : "cycle.modelRetry")} · {p.data.task} · {p.data.model} ·{" "}
          {t("cycle.attempt", { count: p.data.attempt })}
          {p.data.status ? ` · HTTP ${p.data.status}` : ""}: <span className="text">{p.data.error}</span>
          {p.data.delayMs ? t("cycle.nextTry", { delay: formatDuration(p.data.delayMs) }) : ""}
        </div>
      ))}
      {f?.finalState.error && <div className="cycle-alert bad">{f.finalState.error}</div>}

      {end && Object.keys(end.timeRecords).length > 0 && (
        <div className="timings mono" aria-label={t("cycle.timings")}>
          {Object.entries(end.timeRecords).map(([k, v]) => (
            <span key={k} data-timing={k}>
              {timingLabel(k, t)} <b>{formatDuration(v)}</b>
            </span>
          ))}
        </div>
      )}

      {f && (
        <div className="cycle-foot">
          <button
            type="button"
            className="btn btn-sm"
            aria-expanded={expanded}
            onClick={(e) => {
              e.stopPropagation();
              onToggleExpanded?.(cycle.key);
            }}
          >
            {expanded ? "▾" : "▸"} {t("cycle.whatModelSaw")}
          </button>
          <span className="muted">
            {f.request
              ? t("cycle.requestSummary", {
                  messages: t("cycle.requestMessages", { count: f.request.messages.length }),
                  count: f.request.tools.length,
                })
              : t("cycle.noPlannerRequest")}
            {f.withheldTools.length > 0 && t("cycle.withheld", { count: f.withheldTools.length })}
          </span>
        </div>
      )}
      {f && expanded && (
        <div onClick={(e) => e.stopPropagation()}>
          <ModelInputPanel data={f} />
        </div>
      )}
    </article>
  );
});

function Section({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="cycle-sec">
      <div className="cycle-label">{label}</div>
      <div className="cycle-body">{children}</div>
    </div>
  );
}

function ToolCalls({
  executions,
  planned,
}: {
  executions: readonly ToolExecutionData[];
  planned: readonly MonitorToolCall[];
}) {
  const t = useT();
  const ran = new Set(executions.map((e) => e.toolCallId));
  const notRun = planned.filter((c) => !ran.has(c.id));
  return (
    <ul className="tool-calls">
      {executions.map((e) => (
        <ToolCallRow key={e.toolCallId} call={e} />
      ))}
      {notRun.map((c) => (
        <li key={c.id} className="tool-call" data-tool={c.name}>
          <div className="tool-call-head">
            <Badge tone="muted">{t("cycle.notRun")}</Badge>
            <span className="mono tool-name">{c.name}</span>
            <code className="args">{compactArgs(c.arguments)}</code>
          </div>
        </li>
      ))}
    </ul>
  );
}

// Memoised: a running cycle re-renders with each of its events; its finished calls stay as they are.
const ToolCallRow = memo(function ToolCallRow({ call }: { call: ToolExecutionData }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const result = call.result ?? call.summary;
  const long = result.length > 240 || result.includes("\n");
  return (
    <li className="tool-call" data-tool={call.toolName} data-testid="tool-call">
      <div className="tool-call-head">
        <span
          className={call.success ? "ok-mark" : "bad-mark"}
          title={t(call.success ? "cycle.succeeded" : "cycle.failed")}
          aria-label={t(call.success ? "cycle.succeeded" : "cycle.failed")}
        >
          {call.success ? "✓" : "✗"}
        </span>
        <span className="mono tool-name">{call.toolName}</span>
        {call.toolTitle && call.toolTitle !== call.toolName && (
          <span className="muted tool-title">{call.toolTitle}</span>
        )}
        <code className="args" title={prettyJson(call.args)}>
          {compactArgs(call.args)}
        </code>
        <span className="grow" />
        {call.providerName && <span className="muted small">{call.providerName}</span>}
        <span className="mono muted">{formatDuration(call.durationMs)}</span>
      </div>
      <div className={`tool-result text${open ? "" : " clamp"}`}>{result}</div>
      {long && (
        <button
          type="button"
          className="linkish"
          onClick={(e) => {
            e.stopPropagation();
            setOpen(!open);
          }}
        >
          {t(open ? "cycle.less" : "cycle.fullResult")}
        </button>
      )}
    </li>
  );
});

function compactArgs(args: Record<string, unknown>): string {
  const s = JSON.stringify(args);
  return s === "{}" ? "()" : s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

/** After a fallback, which endpoint and model answered (the problem lines above name the one that failed). */
function FallbackAnswer({ answer }: { answer: ModelAnswer | undefined }) {
  const t = useT();
  if (!answer?.fallback) return null;
  return (
    <Badge tone="warn" title={t("cycle.fallbackTitle")} testId="answered-by">
      {t("cycle.fallback", { model: answer.responseModel ?? answer.model, endpoint: answer.endpoint })}
    </Badge>
  );
}

function GateSaw({ gate }: { gate: NonNullable<CycleView["gate"]> }) {
  const t = useT();
  const text = describeGateInput(gate, t);
  return text ? (
    <span className="muted" data-testid="gate-saw" title={t("cycle.gateSawTitle")}>
      {text}
    </span>
  ) : null;
}

"use client";
// One reasoning cycle: timing gate decision, planner text, every tool call, interruptions, end
// reason, tokens and timings. Sections keep their place while the cycle streams in, so the card
// grows downward only and nothing above it moves.
import { memo, useState, type ReactNode } from "react";
import type { MonitorToolCall, ToolExecutionData } from "../../lib/events/schemas";
import { formatClock, formatDuration, prettyJson, shortId } from "../../lib/client/format";
import { describeGateInput } from "../../lib/client/gate-view";
import type { CycleView } from "../../lib/client/timeline";
import { useT } from "../../lib/client/react/use-locale";
import { cycleTokens } from "../../lib/client/usage";
import { ModelInputPanel } from "../model-input/ModelInputPanel";
import { Badge, type Tone } from "../ui/Badge";

const GATE_TONE: Record<string, Tone> = { continue: "ok", no_action: "muted", wait: "warn" };
const GATE_HELP: Record<string, string> = {
  continue: "The timing gate let the planner think and act now.",
  no_action: "The timing gate decided to stay silent this time.",
  wait: "The timing gate chose to wait before deciding again.",
};

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
}

export const CycleCard = memo(function CycleCard({ cycle, selected, expanded, onToggleExpanded, onSelect }: Props) {
  const f = cycle.finalized;
  const t = useT();
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
  const round = cycle.start ? `round ${cycle.start.roundIndex + 1}/${cycle.start.maxRounds}` : "";

  return (
    <article
      className={`cycle${selected ? " cycle-selected" : ""}${end ? "" : " cycle-running"}`}
      data-cycle-id={cycle.cycleId}
      data-testid="cycle-card"
      aria-label={`cycle ${cycle.cycleId}`}
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
          <Badge tone={endTone(end.endReason)} title="end reason" testId="end-reason">
            {end.endReason}
          </Badge>
        ) : (
          <Badge tone="info">running</Badge>
        )}
        <span className="mono muted" title="cycle duration">
          {formatDuration(total)}
        </span>
        {tokens > 0 && (
          <span className="mono muted" title="tokens (timing gate + planner)">
            {tokens.toLocaleString()} tok
          </span>
        )}
      </header>

      <Section label={t("cycle.gate")}>
        {cycle.gate ? (
          <div className="gate" data-testid="gate-decision" data-action={cycle.gate.action}>
            <Badge tone={GATE_TONE[cycle.gate.action]} title={GATE_HELP[cycle.gate.action]}>
              {cycle.gate.action}
            </Badge>
            {cycle.gate.forced && (
              <Badge tone="muted" title="The gate was skipped: the bot was addressed directly or the turn continued.">
                forced
              </Badge>
            )}
            <span className="mono muted">{formatDuration(cycle.gate.durationMs)}</span>
            {cycle.gate.promptTokens > 0 && (
              <span className="mono muted">
                {cycle.gate.promptTokens}→{cycle.gate.completionTokens} tok
              </span>
            )}
            {cycle.gate.attempts !== undefined && cycle.gate.attempts > 1 && (
              <span className="muted">{cycle.gate.attempts} attempts</span>
            )}
            <GateSaw gate={cycle.gate} />
            {cycle.gate.content && <div className="gate-reason text">{cycle.gate.content}</div>}
            {cycle.gate.reasoningContent && (
              <details className="reasoning">
                <summary>model reasoning</summary>
                <div className="text">{cycle.gate.reasoningContent}</div>
              </details>
            )}
          </div>
        ) : f && !f.timingGate ? (
          <span className="muted">not consulted (a later round of the same turn)</span>
        ) : (
          <span className="muted">{end ? "none" : "deciding…"}</span>
        )}
      </Section>

      {(f?.planner || (!end && cycle.gate?.action !== "no_action" && cycle.gate?.action !== "wait")) && (
        <Section label={t("cycle.planner")}>
          {f?.planner ? (
            <div className="planner">
              <div className="text planner-text">
                {f.planner.content || <span className="muted">(no text, tool calls only)</span>}
              </div>
              <div className="planner-meta mono muted">
                {formatDuration(f.planner.durationMs)} · {f.planner.promptTokens.toLocaleString()}→
                {f.planner.completionTokens} tok
                {f.planner.dedupReplaced && " · duplicate reply replaced"}
              </div>
              {f.planner.reasoningContent && (
                <details className="reasoning">
                  <summary>model reasoning</summary>
                  <div className="text">{f.planner.reasoningContent}</div>
                </details>
              )}
            </div>
          ) : (
            <span className="muted">thinking…</span>
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
              {m.data.kind === "emoji" ? <Badge tone="muted">emoji</Badge> : null} {m.data.content}
              {m.data.replyTo && (
                <span className="muted mono small" title={`reply to ${m.data.replyTo}`}>
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
          Planner interrupted:{" "}
          {cycle.interrupted
            ? t("cycle.newMessages", { count: cycle.interrupted.pendingMessages })
            : "new messages arrived"}
          ; the turn restarts with them.
        </div>
      )}
      {cycle.problems.map((p) => (
        <div key={p.seq} className={`cycle-alert ${p.type === "llm.error" ? "bad" : "warn"}`} role="note">
          {p.type === "llm.error" ? "Model error" : "Model retry"} · {p.data.task} · {p.data.model} · attempt{" "}
          {p.data.attempt}
          {p.data.status ? ` · HTTP ${p.data.status}` : ""}: <span className="text">{p.data.error}</span>
          {p.data.delayMs ? ` · next try in ${formatDuration(p.data.delayMs)}` : ""}
        </div>
      ))}
      {f?.finalState.error && <div className="cycle-alert bad">{f.finalState.error}</div>}

      {end && Object.keys(end.timeRecords).length > 0 && (
        <div className="timings mono" aria-label="timings">
          {Object.entries(end.timeRecords).map(([k, v]) => (
            <span key={k}>
              {k} <b>{formatDuration(v)}</b>
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
            {expanded ? "▾" : "▸"} What the model saw
          </button>
          <span className="muted">
            {f.request
              ? t("cycle.requestSummary", {
                  messages: t("cycle.requestMessages", { count: f.request.messages.length }),
                  count: f.request.tools.length,
                })
              : "no planner request"}
            {f.withheldTools.length > 0 && ` · ${f.withheldTools.length} withheld`}
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
  const ran = new Set(executions.map((t) => t.toolCallId));
  const notRun = planned.filter((c) => !ran.has(c.id));
  return (
    <ul className="tool-calls">
      {executions.map((t) => (
        <ToolCallRow key={t.toolCallId} t={t} />
      ))}
      {notRun.map((c) => (
        <li key={c.id} className="tool-call" data-tool={c.name}>
          <div className="tool-call-head">
            <Badge tone="muted">not run</Badge>
            <span className="mono tool-name">{c.name}</span>
            <code className="args">{compactArgs(c.arguments)}</code>
          </div>
        </li>
      ))}
    </ul>
  );
}

// Memoised: a running cycle re-renders with each of its events; its finished calls stay as they are.
const ToolCallRow = memo(function ToolCallRow({ t }: { t: ToolExecutionData }) {
  const [open, setOpen] = useState(false);
  const result = t.result ?? t.summary;
  const long = result.length > 240 || result.includes("\n");
  return (
    <li className="tool-call" data-tool={t.toolName} data-testid="tool-call">
      <div className="tool-call-head">
        <span
          className={t.success ? "ok-mark" : "bad-mark"}
          title={t.success ? "succeeded" : "failed"}
          aria-label={t.success ? "succeeded" : "failed"}
        >
          {t.success ? "✓" : "✗"}
        </span>
        <span className="mono tool-name">{t.toolName}</span>
        {t.toolTitle && t.toolTitle !== t.toolName && <span className="muted tool-title">{t.toolTitle}</span>}
        <code className="args" title={prettyJson(t.args)}>
          {compactArgs(t.args)}
        </code>
        <span className="grow" />
        {t.providerName && <span className="muted small">{t.providerName}</span>}
        <span className="mono muted">{formatDuration(t.durationMs)}</span>
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
          {open ? "less" : "full result"}
        </button>
      )}
    </li>
  );
});

function compactArgs(args: Record<string, unknown>): string {
  const s = JSON.stringify(args);
  return s === "{}" ? "()" : s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

function GateSaw({ gate }: { gate: NonNullable<CycleView["gate"]> }) {
  const text = describeGateInput(gate);
  return text ? (
    <span className="muted" data-testid="gate-saw" title="The context the gate model was given">
      {text}
    </span>
  ) : null;
}

// Agent state + stage + round, the same everywhere a session's activity is shown.
import type { AgentState } from "../../lib/events/schemas";
import { stageLabel } from "../../lib/i18n/stages";

const STATE_LABEL: Record<AgentState, string> = { running: "running", wait: "waiting", stop: "idle" };

export function StageBadge({
  agentState,
  stage,
  detail,
  roundText,
}: {
  agentState: AgentState;
  stage: string;
  detail?: string;
  roundText?: string;
}) {
  return (
    <span className={`stage stage-${agentState}`} title={`agent ${STATE_LABEL[agentState]}`}>
      <span className="stage-dot" aria-hidden="true" />
      <span className="stage-state">{STATE_LABEL[agentState]}</span>
      {stage && <span className="stage-name">{stageLabel(stage)}</span>}
      {detail && <span className="stage-detail">{detail}</span>}
      {roundText && <span className="stage-round">{roundText}</span>}
    </span>
  );
}

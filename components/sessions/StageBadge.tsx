// Agent state + stage + round, the same everywhere a session's activity is shown.
import type { AgentState } from "../../lib/events/schemas";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { stageLabel } from "../../lib/i18n/stages";

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
  const { locale } = useLocale();
  const t = useT();
  const state = t(`agent.${agentState}`);
  return (
    <span className={`stage stage-${agentState}`} title={`agent ${state}`} data-agent-state={agentState}>
      <span className="stage-dot" aria-hidden="true" />
      <span className="stage-state">{state}</span>
      {stage && <span className="stage-name">{stageLabel(stage, locale)}</span>}
      {detail && <span className="stage-detail">{detail}</span>}
      {roundText && <span className="stage-round">{roundText}</span>}
    </span>
  );
}

"use client";
// One tool: icon, title and name, description, annotation badges, parameters, its switch with a
// reason and the engine's acknowledgement, and running it by hand.
import { useState, type FormEvent } from "react";
import type { ToolView } from "../../lib/api/schemas";
import { formatClock, formatDuration } from "../../lib/client/format";
import { useCanChange } from "../../lib/client/react/use-account";
import { useT } from "../../lib/client/react/use-locale";
import { sessionLabelText, type SessionLabelSource } from "../../lib/client/session-label";
import type { ToggleAck } from "../../lib/client/toggle-ack";
import { Badge } from "../ui/Badge";
import { Switch } from "../ui/Switch";
import { AnnotationBadges } from "./AnnotationBadges";
import { SchemaView } from "./SchemaView";
import { ToolIcon } from "./ToolIcon";
import { ToolRunPanel } from "./ToolRunPanel";

interface Props {
  tool: ToolView;
  scopeLabel: string;
  ack: ToggleAck | null;
  onToggle: (enabled: boolean, reason: string) => void;
  /** Sessions a run by hand may use as its context (and the acknowledgement names). */
  sessions: readonly SessionLabelSource[];
}

export function ToolRow({ tool, scopeLabel, ack, onToggle, sessions }: Props) {
  const t = useT();
  const [pending, setPending] = useState<boolean | null>(null);
  const [reason, setReason] = useState("");
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState(false);
  const canChange = useCanChange();
  const title = tool.title ?? tool.annotation?.title;
  const sending = ack?.phase === "sending";
  // What the switch shows, and its words beside it: the state being confirmed, else the tool's.
  const shown = pending ?? tool.enabled;
  // An MCP tool offered under `<server>__<tool>` because its own name collided (see server/mcp/manager.ts).
  const originalName = typeof tool.metadata.originalName === "string" ? tool.metadata.originalName : null;
  const renamedWhy = typeof tool.metadata.renamed === "string" ? tool.metadata.renamed : "";

  const confirm = (e: FormEvent) => {
    e.preventDefault();
    if (pending === null) return;
    onToggle(pending, reason.trim());
    setPending(null);
    setReason("");
  };

  return (
    <li
      className={`tool${tool.enabled ? "" : " tool-off"}`}
      data-tool={tool.name}
      data-enabled={tool.enabled}
      data-testid="tool-row"
    >
      <div className="tool-main">
        <ToolIcon icons={tool.icons} />
        <div className="tool-id">
          <div className="tool-title">{title ?? tool.name}</div>
          {title && <div className="mono muted small">{tool.name}</div>}
        </div>
        <div className="tool-desc text">
          {tool.description || <span className="muted">{t("tools.noDescription")}</span>}
        </div>
        <div className="tool-switch" title={canChange ? undefined : t("common.viewerReadOnly")}>
          <Switch
            checked={shown}
            disabled={sending || !tool.providerEnabled || !canChange}
            onChange={(next) => setPending(next === tool.enabled ? null : next)}
            label={t("tools.enabledFor", { name: tool.name, scope: scopeLabel })}
          />
          <span className="small muted">{t(shown ? "tools.on" : "tools.off")}</span>
        </div>
      </div>
      <div className="tool-meta">
        <AnnotationBadges annotation={tool.annotation} />
        <Badge tone="muted" title={t(`tools.placement.${tool.placement}`)}>
          {t(`tools.placementName.${tool.placement}`)}
        </Badge>
        {!tool.providerEnabled && (
          <Badge tone="bad" title={t("tools.providerOffTitle")}>
            {t("tools.providerOff")}
          </Badge>
        )}
        {originalName && (
          <Badge tone="warn" title={t("tools.renamedTitle", { why: renamedWhy || t("tools.renamedWhy") })}>
            {t("tools.renamedFrom", { name: originalName })}
            {typeof tool.metadata.serverName === "string" && ` (${tool.metadata.serverName})`}
          </Badge>
        )}
        {tool.shadowedBy && (
          <Badge tone="warn" title={t("tools.shadowedTitle")}>
            {t("tools.shadowedBy", { name: tool.shadowedBy })}
          </Badge>
        )}
        {tool.toggledBy && (
          <span className="small muted" title={tool.toggledBy.reason}>
            {t(tool.toggledBy.scope === "global" ? "tools.toggledGlobal" : "tools.toggledSession", {
              state: t(tool.enabled ? "tools.state.enabled" : "tools.state.disabled"),
              actor: tool.toggledBy.actor,
              time: formatClock(tool.toggledBy.ts),
            })}
            {tool.toggledBy.reason && ` — “${tool.toggledBy.reason}”`}
          </span>
        )}
        <span className="grow" />
        <button type="button" className="linkish" aria-expanded={open} onClick={() => setOpen(!open)}>
          {t(open ? "tools.hideParameters" : "tools.parameters")}
        </button>
        {canChange && (
          <button
            type="button"
            className="btn btn-sm"
            aria-expanded={running}
            onClick={() => setRunning(!running)}
            data-testid="run-tool"
          >
            {t(running ? "tools.closeRun" : "tools.run")}
          </button>
        )}
      </div>
      {pending !== null && canChange && (
        <form className="toggle-confirm" onSubmit={confirm}>
          <span>
            {t(pending ? "tools.confirmEnable" : "tools.confirmDisable", { name: tool.name, scope: scopeLabel })}
          </span>
          <input
            className="input input-sm"
            placeholder={t("tools.reasonHint")}
            required
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
            autoFocus
            aria-label={t("tools.reason")}
          />
          <button className="btn btn-sm btn-primary" disabled={!reason.trim()}>
            {t(pending ? "tools.enable" : "tools.disable")}
          </button>
          <button type="button" className="btn btn-sm" onClick={() => setPending(null)}>
            {t("tools.cancel")}
          </button>
        </form>
      )}
      {ack && <AckLine ack={ack} sessions={sessions} />}
      {open && <SchemaView schema={tool.parametersSchema} />}
      {running && canChange && <ToolRunPanel tool={tool} sessions={sessions} />}
    </li>
  );
}

function AckLine({ ack, sessions }: { ack: ToggleAck; sessions: readonly SessionLabelSource[] }) {
  const t = useT();
  switch (ack.phase) {
    case "sending":
      return (
        <div className="ack ack-pending" data-testid="toggle-ack" data-phase="sending">
          {t(ack.enabled ? "tools.ack.savingEnable" : "tools.ack.savingDisable")}
        </div>
      );
    case "failed":
      return (
        <div className="ack ack-failed" role="alert" data-testid="toggle-ack" data-phase="failed">
          {t(ack.enabled ? "tools.ack.failedEnable" : "tools.ack.failedDisable", { error: ack.error })}
        </div>
      );
    case "recorded":
      return (
        <div className="ack ack-pending" data-testid="toggle-ack" data-phase="recorded">
          {t("tools.ack.recorded", { audit: ack.auditId.slice(0, 8) })}
          {ack.toggledSeen ? t("tools.ack.notified") : ""}
          {t(ack.enabled ? "tools.ack.waitEnable" : "tools.ack.waitDisable")}
        </div>
      );
    case "applied":
      return (
        <div className="ack ack-applied" data-testid="toggle-ack" data-phase="applied">
          {t(ack.enabled ? "tools.ack.appliedEnable" : "tools.ack.appliedDisable", {
            cycle: ack.appliedCycleId,
            session: sessionLabelText(
              ack.appliedSessionId,
              sessions.find((s) => s.id === ack.appliedSessionId),
            ),
            after: formatDuration(Math.max(0, ack.appliedAt - ack.requestedAt)),
          })}
        </div>
      );
  }
}

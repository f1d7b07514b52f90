"use client";
// One tool: icon, title and name, description, annotation badges, parameters, its switch with a
// reason and the engine's acknowledgement, and running it by hand.
import { useState, type FormEvent } from "react";
import type { ToolView } from "../../lib/api/schemas";
import { formatClock, formatDuration } from "../../lib/client/format";
import { useCanChange, VIEWER_READ_ONLY } from "../../lib/client/react/use-account";
import type { ToggleAck } from "../../lib/client/toggle-ack";
import { Badge } from "../ui/Badge";
import { Switch } from "../ui/Switch";
import { AnnotationBadges } from "./AnnotationBadges";
import { SchemaView } from "./SchemaView";
import { ToolIcon } from "./ToolIcon";
import { ToolRunPanel } from "./ToolRunPanel";

const PLACEMENT_HELP: Record<ToolView["placement"], string> = {
  visible: "Offered to the planner in every request.",
  deferred: "Not offered up front; the planner finds it with tool_search.",
  timing: "Offered to the timing gate only.",
};

interface Props {
  tool: ToolView;
  scopeLabel: string;
  ack: ToggleAck | null;
  onToggle: (enabled: boolean, reason: string) => void;
  /** Sessions a run by hand may use as its context. */
  sessions: readonly { id: string; name: string }[];
}

export function ToolRow({ tool, scopeLabel, ack, onToggle, sessions }: Props) {
  const [pending, setPending] = useState<boolean | null>(null);
  const [reason, setReason] = useState("");
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState(false);
  const canChange = useCanChange();
  const title = tool.title ?? tool.annotation?.title;
  const sending = ack?.phase === "sending";
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
        <div className="tool-desc text">{tool.description || <span className="muted">No description.</span>}</div>
        <div className="tool-switch" title={canChange ? undefined : VIEWER_READ_ONLY}>
          <Switch
            checked={pending ?? tool.enabled}
            disabled={sending || !tool.providerEnabled || !canChange}
            onChange={(next) => setPending(next === tool.enabled ? null : next)}
            label={`${tool.name} enabled for ${scopeLabel}`}
          />
          <span className="small muted">{tool.enabled ? "on" : "off"}</span>
        </div>
      </div>
      <div className="tool-meta">
        <AnnotationBadges annotation={tool.annotation} />
        <Badge tone="muted" title={PLACEMENT_HELP[tool.placement]}>
          {tool.placement}
        </Badge>
        {!tool.providerEnabled && (
          <Badge tone="bad" title="The provider is off or failed; its tools cannot run.">
            provider off
          </Badge>
        )}
        {originalName && (
          <Badge tone="warn" title={`Offered under this name because ${renamedWhy || "its own name collided"}.`}>
            renamed from {originalName}
            {typeof tool.metadata.serverName === "string" && ` (${tool.metadata.serverName})`}
          </Badge>
        )}
        {tool.shadowedBy && (
          <Badge tone="warn" title="Another provider's tool of the same name wins.">
            shadowed by {tool.shadowedBy}
          </Badge>
        )}
        {tool.toggledBy && (
          <span className="small muted" title={tool.toggledBy.reason}>
            {tool.enabled ? "enabled" : "disabled"}{" "}
            {tool.toggledBy.scope === "global" ? "globally" : "for this session"} by {tool.toggledBy.actor} at{" "}
            {formatClock(tool.toggledBy.ts)}
            {tool.toggledBy.reason && ` — “${tool.toggledBy.reason}”`}
          </span>
        )}
        <span className="grow" />
        <button type="button" className="linkish" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "hide parameters" : "parameters"}
        </button>
        {canChange && (
          <button
            type="button"
            className="btn btn-sm"
            aria-expanded={running}
            onClick={() => setRunning(!running)}
            data-testid="run-tool"
          >
            {running ? "Close run" : "Run"}
          </button>
        )}
      </div>
      {pending !== null && canChange && (
        <form className="toggle-confirm" onSubmit={confirm}>
          <span>
            {pending ? "Enable" : "Disable"} <b className="mono">{tool.name}</b> for {scopeLabel}.
          </span>
          <input
            className="input input-sm"
            placeholder="Reason (required, kept in the audit list)"
            required
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
            autoFocus
            aria-label="Reason"
          />
          <button className="btn btn-sm btn-primary" disabled={!reason.trim()}>
            {pending ? "Enable" : "Disable"}
          </button>
          <button type="button" className="btn btn-sm" onClick={() => setPending(null)}>
            Cancel
          </button>
        </form>
      )}
      {ack && <AckLine ack={ack} />}
      {open && <SchemaView schema={tool.parametersSchema} />}
      {running && canChange && <ToolRunPanel tool={tool} sessions={sessions} />}
    </li>
  );
}

function AckLine({ ack }: { ack: ToggleAck }) {
  const what = ack.enabled ? "enable" : "disable";
  switch (ack.phase) {
    case "sending":
      return (
        <div className="ack ack-pending" data-testid="toggle-ack" data-phase="sending">
          Saving the {what}…
        </div>
      );
    case "failed":
      return (
        <div className="ack ack-failed" role="alert" data-testid="toggle-ack" data-phase="failed">
          Could not {what}: {ack.error}
        </div>
      );
    case "recorded":
      return (
        <div className="ack ack-pending" data-testid="toggle-ack" data-phase="recorded">
          Saved (audit {ack.auditId.slice(0, 8)}){ack.toggledSeen ? ", engine notified" : ""}; waiting for the next
          cycle to confirm the model {ack.enabled ? "is offered" : "no longer gets"} it.
        </div>
      );
    case "applied":
      return (
        <div className="ack ack-applied" data-testid="toggle-ack" data-phase="applied">
          ✓ Applied: cycle <span className="mono">{ack.appliedCycleId}</span> of session{" "}
          <span className="mono">{ack.appliedSessionId}</span> {ack.enabled ? "offered" : "no longer offered"} it,{" "}
          {formatDuration(Math.max(0, ack.appliedAt - ack.requestedAt))} after the switch.
        </div>
      );
  }
}

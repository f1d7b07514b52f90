// Operator tool toggles: write the toggle with its audit entry, apply it to the engine at once (the
// next planner listing sees it) and announce it as tool.toggled: a session toggle in that session's
// ledger; a global one in the "_global" stream and in every live session.
import type { Actor } from "../../../lib/api/accounts";
import { GLOBAL_STREAM_ID, type ToggleToolBody } from "../../../lib/api/schemas";
import type { AuditLog } from "../../accounts/audit";
import type { Engine } from "../../composition";
import type { SessionRecord } from "../../stores/sessions";
import type { ToolToggle } from "../../stores/toggles";
import { notFound } from "../errors";
import type { ToolCatalog } from "./tool-catalog";
import type { ToggleProvenance } from "./toggle-provenance";

export interface ToggleResult {
  toolName: string;
  scope: ToolToggle["scope"];
  sessionId: string | null;
  enabled: boolean;
  auditId: string;
  eventSeq: number;
}

export class ToolToggleService {
  /** Toggles run one at a time, so the engine's state always matches the order they were stored in. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: Engine,
    private readonly catalog: ToolCatalog,
    private readonly provenance: ToggleProvenance,
    private readonly audit: AuditLog,
  ) {}

  toggle(toolName: string, session: SessionRecord | null, body: ToggleToolBody, actor: Actor): Promise<ToggleResult> {
    const run = this.chain.then(() => this.apply(toolName, session, body, actor));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async apply(
    toolName: string,
    session: SessionRecord | null,
    body: ToggleToolBody,
    actor: Actor,
  ): Promise<ToggleResult> {
    if (!(await this.catalog.has(toolName, session))) throw notFound(`tool ${toolName}`);
    const toggle: ToolToggle = session
      ? { toolName, scope: "session", sessionId: session.id, enabled: body.enabled }
      : { toolName, scope: "global", sessionId: null, enabled: body.enabled };
    const { engine } = this;
    const audit = await engine.stores.toggles.set(toggle, actor, body.reason, engine.clock.now());
    await this.audit.record({
      actor,
      action: "tool.toggle",
      target: session ? `tool:${toolName}@session:${session.id}` : `tool:${toolName}`,
      before: { enabled: audit.oldEnabled },
      after: { enabled: toggle.enabled },
      reason: body.reason,
    });
    engine.toggles.apply(toggle);
    this.provenance.record(audit);
    const data = {
      toolName,
      scope: toggle.scope,
      ...(session ? { sessionId: session.id } : {}),
      enabled: toggle.enabled,
      actor: audit.actor,
      reason: audit.reason,
      auditId: audit.id,
    };
    // A global switch is recorded on the global stream, by its writer (another node in a cluster).
    const eventSeq = session
      ? engine.bus.emit(session.id, "tool.toggled", data).seq
      : await engine.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", data);
    if (!session) {
      for (const id of engine.manager.runningSessionIds()) engine.bus.emit(id, "tool.toggled", data);
    }
    // The other nodes of a cluster reload the toggles, and tell their running sessions of a global one.
    engine.stateChanges.changed("toggles", session ? undefined : { type: "tool.toggled", data });
    // The answer names the event's seq: it is in the ledger (readable) once the caller has it.
    await engine.bus.whenFlushed();
    return {
      toolName,
      scope: toggle.scope,
      sessionId: toggle.sessionId,
      enabled: toggle.enabled,
      auditId: audit.id,
      eventSeq,
    };
  }
}

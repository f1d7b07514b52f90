// Tools run by hand (POST /api/tools/:name/invoke): in a chat session's own registry (its runtime,
// created when absent) or in a neutral operator context that stores no session, like the MCP
// gateway's. Arguments are checked by the registry's own validator first, so a bad field is a 400
// naming it; a disabled tool, a destructive one without confirmation and a tool that speaks in a chat
// outside one are refused (409). Every run is an audit entry (tool.invoke, like a run through the
// /api/mcp gateway); one inside a session is also an operator.action in its timeline.
import { randomUUID } from "node:crypto";
import type { Actor } from "../../../lib/api/accounts";
import { nestsDeeperThan, TOO_DEEP } from "../../../lib/json/depth";
import type { InvokeToolBody } from "../../../lib/api/schemas";
import {
  isDestructive,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolSpec,
} from "../../../lib/tools/schemas";
import type { AuditInput, AuditLog } from "../../accounts/audit";
import type { Engine } from "../../composition";
import type { SessionlessTools } from "../../engine";
import type { SessionRecord } from "../../stores/sessions";
import type { ToolCatalogEntry, ToolRegistry } from "../../tools/registry";
import { ArgumentValidator } from "../../tools/validation";
import { HttpError, notFound } from "../errors";
import type { ToggleProvenance } from "./toggle-provenance";

/** The neutral context's scope: toggles of no session apply to it; no session of this id exists. */
export const OPERATOR_SCOPE_ID = "_operator";

/** A refusal the route answers as 409 with this body. */
export class ToolRunRefused extends Error {
  override name = "ToolRunRefused";
  constructor(
    message: string,
    readonly needsConfirm = false,
  ) {
    super(message);
  }
}

/** Arguments longer than this (as JSON) are kept cut in the audit entry. */
const AUDITED_ARGUMENT_CHARS = 4_000;

/** One tool run by hand (REST) or through the /api/mcp gateway, as the audit keeps it. */
export interface ToolRun {
  actor: Actor;
  toolName: string;
  via: "rest" | "mcp-gateway";
  /** The chat session it ran in; null: outside any (the neutral context, the gateway). */
  sessionId: string | null;
  arguments: Record<string, unknown>;
  result: ToolExecutionResult;
  durationMs: number;
}

function auditedArguments(args: Record<string, unknown>): Record<string, unknown> {
  // Arguments nested past the limit were refused before running; stringifying them overflows the stack.
  if (nestsDeeperThan(args)) return { cut: TOO_DEEP };
  const text = JSON.stringify(args);
  return text.length <= AUDITED_ARGUMENT_CHARS ? args : { cut: `${text.slice(0, AUDITED_ARGUMENT_CHARS)}…` };
}

/** The audit entry of a tool run: action `tool.invoke`, target `tool:<name>`, what ran and how it ended. */
export function toolRunAudit(run: ToolRun): AuditInput {
  return {
    actor: run.actor,
    action: "tool.invoke",
    target: `tool:${run.toolName}`,
    after: {
      via: run.via,
      sessionId: run.sessionId,
      arguments: auditedArguments(run.arguments),
      success: run.result.success,
      ...(run.result.success ? {} : { error: run.result.errorMessage }),
      durationMs: run.durationMs,
    },
  };
}

export class ToolInvokeService {
  private readonly validator: ArgumentValidator;
  private neutral: SessionlessTools | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly provenance: ToggleProvenance,
    private readonly audit: AuditLog,
  ) {
    this.validator = new ArgumentValidator((message) => engine.logger.warn(message));
  }

  async invoke(
    toolName: string,
    session: SessionRecord | null,
    body: InvokeToolBody,
    actor: Actor,
  ): Promise<ToolExecutionResult> {
    const callId = `operator-${randomUUID()}`;
    const metadata = { via: "operator", actor: actor.name, callId };
    const { registry, context } = session
      ? await this.engine.manager.operatorTools(session, metadata)
      : this.neutralTools(metadata);

    const spec = this.runnable(toolName, await registry.listAllTools(context), session);
    const validation = this.validator.validate(toolName, spec.parametersSchema, body.arguments);
    if (!validation.ok) {
      const fields = validation.fields.map((f) => ({
        path: f.path ? `arguments.${f.path}` : "arguments",
        message: f.message,
        in: "body" as const,
      }));
      throw new HttpError(400, `invalid arguments for ${toolName}: ${validation.problems.join("; ")}`, fields);
    }
    if (!session && spec.metadata.speaksInChat === true) {
      throw new ToolRunRefused(`${toolName} speaks in a chat: choose a session to run it in`);
    }
    if (isDestructive(spec) && !body.confirm) {
      throw new ToolRunRefused(`${toolName} may change or delete data: confirm to run it`, true);
    }

    const startedAt = this.engine.clock.now();
    const result = await this.run(registry, context, toolName, validation.args, callId);
    const durationMs = this.engine.clock.now() - startedAt;
    await this.audit.record(
      toolRunAudit({
        actor,
        toolName,
        via: "rest",
        sessionId: session?.id ?? null,
        arguments: validation.args,
        result,
        durationMs,
      }),
    );
    if (session) {
      this.engine.bus.emit(session.id, "operator.action", {
        actor: actor.name,
        action: "tool.invoke",
        target: toolName,
        detail: { arguments: validation.args, success: result.success, durationMs },
      });
      // The caller can read the event from the ledger once it has the answer.
      await this.engine.bus.whenFlushed();
    }
    return result;
  }

  /** The spec a call by this name would run; 404 when no provider lists it, 409 when it is switched off. */
  private runnable(toolName: string, entries: ToolCatalogEntry[], session: SessionRecord | null): ToolSpec {
    const named = entries.filter((e) => e.spec.name === toolName);
    if (!named.length) throw notFound(`tool ${toolName}`);
    const active = named.find((e) => e.disabledBy === null && e.shadowedBy === null);
    if (active) return active.spec;
    const first = named[0];
    if (first.disabledBy === "provider") throw new ToolRunRefused(`${toolName} is disabled by its provider`);
    const toggle = this.engine.toggles.effectiveToggle(toolName, session?.id);
    const by = toggle ? this.provenance.of(toggle) : null;
    const scope = toggle?.scope === "session" ? "in this session" : "globally";
    const why = by ? ` by ${by.actor}${by.reason ? `: ${by.reason}` : ""}` : "";
    throw new ToolRunRefused(`${toolName} is switched off ${scope}${why}`);
  }

  private neutralTools(metadata: Record<string, unknown>): { registry: ToolRegistry; context: ToolExecutionContext } {
    const { engine } = this;
    this.neutral ??= engine.manager.sessionlessTools({ id: OPERATOR_SCOPE_ID, platform: "operator" });
    // Providers registered since the last call (a plugin runner coming up) join here.
    this.neutral.refresh();
    return { registry: this.neutral.registry, context: { ...this.neutral.context, reasoning: "", metadata } };
  }

  private run(
    registry: ToolRegistry,
    context: ToolExecutionContext,
    toolName: string,
    args: Record<string, unknown>,
    callId: string,
  ): Promise<ToolExecutionResult> {
    return registry.invoke(
      {
        toolName,
        arguments: args,
        callId,
        sessionId: context.sessionId,
        streamId: context.streamId,
        reasoning: "",
        metadata: context.metadata,
      },
      context,
    );
  }
}

// Tools run by hand (POST /api/tools/:name/invoke): in a chat session's own registry (its runtime,
// created when absent) or in a neutral operator context that stores no session, like the MCP
// gateway's. Arguments are checked by the registry's own validator first, so a bad field is a 400
// naming it; a disabled tool, a destructive one without confirmation and a tool that speaks in a chat
// outside one are refused (409). A run inside a session is an operator.action in its timeline.
import { randomUUID } from "node:crypto";
import type { InvokeToolBody } from "../../../lib/api/schemas";
import {
  MCP_HINT_DEFAULTS,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolSpec,
} from "../../../lib/tools/schemas";
import type { Engine } from "../../composition";
import type { SessionlessTools } from "../../engine";
import type { SessionRecord } from "../../stores/types";
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

/**
 * Destructive unless the tool says otherwise: a read-only tool modifies nothing (MCP spec), and an
 * absent destructiveHint means destructive (MCP default). Builtins declare theirs explicitly.
 */
export function isDestructive(spec: Pick<ToolSpec, "annotation">): boolean {
  const hints = spec.annotation;
  if (hints?.readOnlyHint ?? MCP_HINT_DEFAULTS.readOnlyHint) return false;
  return hints?.destructiveHint ?? MCP_HINT_DEFAULTS.destructiveHint;
}

export class ToolInvokeService {
  private readonly validator: ArgumentValidator;
  private neutral: SessionlessTools | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly provenance: ToggleProvenance,
  ) {
    this.validator = new ArgumentValidator((message) => engine.logger.warn(message));
  }

  async invoke(
    toolName: string,
    session: SessionRecord | null,
    body: InvokeToolBody,
    actor: string,
  ): Promise<ToolExecutionResult> {
    const callId = `operator-${randomUUID()}`;
    const metadata = { via: "operator", actor, callId };
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
    if (session) {
      this.engine.bus.emit(session.id, "operator.action", {
        actor,
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

// OpenTelemetry: a session's cycles as OTLP/JSON traces, and the live push's state.
import { sessionParamsSchema } from "../../../lib/api/schemas";
import { telemetryStatusSchema } from "../../../lib/api/telemetry";
import { apiRoute } from "../context";
import { ledgerPages } from "../services/session-export";
import { sessionTracesJson } from "../../telemetry/otel";

export const sessionOtelRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/otel",
  params: sessionParamsSchema,
  async handle({ params }, ctx) {
    const session = await ctx.sessions.require(params.id);
    const { json } = await sessionTracesJson(ledgerPages(ctx.ledger, session.id), session.id, ctx.telemetry.naming);
    return { raw: { bytes: json, contentType: "application/json" } };
  },
});

export const telemetryRoute = apiRoute({
  method: "GET",
  path: "/api/telemetry",
  response: telemetryStatusSchema,
  async handle(_input, ctx) {
    return { body: ctx.telemetry.status() };
  },
});

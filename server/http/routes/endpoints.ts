// GET /api/endpoints: the model endpoints and what each taught the client (empty for the SIMULATED model's test doubles).
import { endpointListSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const endpointsRoute = apiRoute({
  method: "GET",
  path: "/api/endpoints",
  response: endpointListSchema,
  handle(_input, ctx) {
    const model = ctx.engine.model;
    return Promise.resolve({
      body: { simulated: model.info().simulated, endpoints: model.endpointStatuses?.() ?? [] },
    });
  },
});

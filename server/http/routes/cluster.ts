// GET /api/cluster (admins only: it names every node's address): the cluster's nodes, the sessions each
// owns and how fresh their leases are (a single process answers with itself).
import { clusterSchema } from "../../../lib/api/cluster";
import { apiRoute } from "../context";

export const clusterRoute = apiRoute({
  method: "GET",
  path: "/api/cluster",
  access: "admin",
  response: clusterSchema,
  async handle(_input, ctx) {
    return { status: 200, body: await ctx.cluster.status() };
  },
});

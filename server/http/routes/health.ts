// GET /api/health (public): model in use (SIMULATED or not) and whether the database answers and takes
// writes (state from server/db/health.ts). Answers from memory and one read: never waits for a lock.
import { healthSchema, type Health } from "../../../lib/api/schemas";
import { apiRoute } from "../context";

/** The package version, fixed at build time of the image; read once. */
const VERSION = process.env.npm_package_version;

export const healthRoute = apiRoute({
  method: "GET",
  path: "/api/health",
  public: true,
  response: healthSchema,
  async handle(_input, ctx) {
    let db: Health["db"] = ctx.database.status();
    try {
      await ctx.pingDatabase();
    } catch (error) {
      db = { ok: false, state: "error", detail: error instanceof Error ? error.message : String(error) };
    }
    const body: Health = { ok: db.ok, model: ctx.engine.model.info(), db, ...(VERSION ? { version: VERSION } : {}) };
    return { status: db.ok ? 200 : 503, body };
  },
});

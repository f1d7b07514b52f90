// GET /api/auth/hint (public): where the operator token is, so the login page names the real place
// (the data folder may have moved with MAISAKA_DATA_DIR). The place only, never the token.
import { loginHintSchema } from "../../../lib/api/accounts";
import { apiRoute } from "../context";

export const loginHintRoute = apiRoute({
  method: "GET",
  path: "/api/auth/hint",
  public: true,
  response: loginHintSchema,
  async handle(_input, ctx) {
    return { body: ctx.loginHint };
  },
});

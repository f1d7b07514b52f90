// Operator login for the dashboard: the token is exchanged for a server-side login whose random id
// rides in an httpOnly SameSite=Strict cookie; logout ends that login on the server.
import { authMeSchema, loginBodySchema } from "../../../lib/api/schemas";
import { clientAddress } from "../../auth/login-limiter";
import { apiRoute } from "../context";
import { HttpError, tooManyWrongTokens } from "../errors";

export const loginRoute = apiRoute({
  method: "POST",
  path: "/api/auth/login",
  public: true,
  body: loginBodySchema,
  response: authMeSchema,
  async handle({ body }, ctx, info) {
    const address = clientAddress(info.req.socket.remoteAddress);
    const gate = ctx.logins.check(address);
    if (!gate.ok)
      throw tooManyWrongTokens(gate.retryAfterMs, gate.reason === "address" ? " from this address" : " overall");
    if (!ctx.auth.checkToken(body.token)) {
      ctx.logins.recordFailure(address);
      throw new HttpError(401, "wrong operator token");
    }
    ctx.logins.recordSuccess(address);
    return {
      body: { authenticated: true, via: "cookie" },
      headers: { "set-cookie": await ctx.auth.login(info.secure) },
    };
  },
});

export const logoutRoute = apiRoute({
  method: "POST",
  path: "/api/auth/logout",
  async handle(_input, ctx, info) {
    return { status: 204, headers: { "set-cookie": await ctx.auth.logout(info.req.headers, info.secure) } };
  },
});

export const meRoute = apiRoute({
  method: "GET",
  path: "/api/auth/me",
  response: authMeSchema,
  async handle(_input, _ctx, info) {
    // Routes that are not public only run authenticated.
    return { body: { authenticated: true, via: info.auth ?? "bearer" } };
  },
});

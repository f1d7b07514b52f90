// Operator login for the dashboard: the token is exchanged for an httpOnly SameSite=Strict cookie.
import { authMeSchema, loginBodySchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const loginRoute = apiRoute({
  method: "POST",
  path: "/api/auth/login",
  public: true,
  body: loginBodySchema,
  response: authMeSchema,
  async handle({ body }, ctx, info) {
    if (!ctx.auth.checkToken(body.token)) throw new HttpError(401, "wrong operator token");
    return {
      body: { authenticated: true, via: "cookie" },
      headers: { "set-cookie": ctx.auth.loginCookie(info.secure) },
    };
  },
});

export const logoutRoute = apiRoute({
  method: "POST",
  path: "/api/auth/logout",
  async handle(_input, ctx, info) {
    return { status: 204, headers: { "set-cookie": ctx.auth.logoutCookie(info.secure) } };
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

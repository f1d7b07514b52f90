// Login for the dashboard: the operator token, an account's API token, or an account's name and
// password is exchanged for a server-side login whose random id rides in an httpOnly SameSite=Strict
// cookie; logout ends that login on the server; an admin lists and revokes every login.
import {
  authMeSchema,
  loginBodySchema,
  loginSessionListSchema,
  loginSessionParamsSchema,
  type Actor,
} from "../../../lib/api/accounts";
import { clientAddress } from "../../auth/login-limiter";
import { apiRoute } from "../context";
import { HttpError, notFound, tooManyWrongTokens } from "../errors";

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
    // Wrong names, passwords and tokens count alike against the same limiter.
    const actor: Actor | null =
      "token" in body ? ctx.auth.actorOfToken(body.token) : await ctx.accounts.byPassword(body.username, body.password);
    if (!actor) {
      ctx.logins.recordFailure(address);
      throw new HttpError(401, "token" in body ? "wrong token" : "wrong name or password");
    }
    ctx.logins.recordSuccess(address);
    return {
      body: { authenticated: true, via: "cookie", account: actor },
      headers: { "set-cookie": await ctx.auth.login(info.secure, actor.id, address) },
    };
  },
});

export const logoutRoute = apiRoute({
  method: "POST",
  path: "/api/auth/logout",
  // Ending one's own login is the one change a viewer may make.
  access: "self",
  async handle(_input, ctx, info) {
    return { status: 204, headers: { "set-cookie": await ctx.auth.logout(info.req.headers, info.secure) } };
  },
});

export const meRoute = apiRoute({
  method: "GET",
  path: "/api/auth/me",
  response: authMeSchema,
  async handle({ actor }, _ctx, info) {
    // Routes that are not public only run authenticated.
    return { body: { authenticated: true, via: info.auth ?? "bearer", account: actor } };
  },
});

export const listLoginSessionsRoute = apiRoute({
  method: "GET",
  path: "/api/auth/sessions",
  access: "admin",
  response: loginSessionListSchema,
  async handle(_input, ctx, info) {
    const sessions = ctx.auth.logins
      .list()
      .reverse()
      .map((login) => {
        const account = ctx.accounts.view(login.accountId);
        return {
          id: login.idHash,
          account: { id: login.accountId, name: account?.name ?? login.accountId, role: account?.role ?? null },
          createdAt: login.createdAt,
          lastSeenAt: login.lastSeenAt,
          expiresAt: login.expiresAt,
          address: login.address,
          current: login.idHash === info.loginHash,
        };
      });
    return { body: { sessions } };
  },
});

export const revokeLoginSessionRoute = apiRoute({
  method: "DELETE",
  path: "/api/auth/sessions/:id",
  access: "admin",
  params: loginSessionParamsSchema,
  async handle({ params, actor }, ctx) {
    const login = ctx.auth.logins.list().find((l) => l.idHash === params.id);
    if (!login || !(await ctx.auth.logins.revokeHash(params.id))) throw notFound(`login session ${params.id}`);
    await ctx.audit.record({
      actor,
      action: "session.revoke",
      target: `account:${login.accountId}`,
      before: { session: params.id, address: login.address, createdAt: login.createdAt },
    });
    return { status: 204 };
  },
});

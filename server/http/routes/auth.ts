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
import { apiRoute, type ApiContext } from "../context";
import { HttpError, notFound, tooManyWrongTokens } from "../errors";

export const loginRoute = apiRoute({
  method: "POST",
  path: "/api/auth/login",
  public: true,
  body: loginBodySchema,
  response: authMeSchema,
  async handle({ body }, ctx, info) {
    const actor =
      "token" in body ? tokenLogin(ctx, info.address, body.token) : await passwordLogin(ctx, info.address, body);
    if (!actor) throw new HttpError(401, "token" in body ? "wrong token" : "wrong name or password");
    return {
      body: { authenticated: true, via: "cookie", account: actor },
      headers: { "set-cookie": await ctx.auth.login(info.secure, actor.id, info.address) },
    };
  },
});

/** Wrong tokens count against the address with the API's and the socket's (operator-auth.ts). */
function tokenLogin(ctx: ApiContext, address: string, token: string): Actor | null {
  const tried = ctx.auth.tryToken(address, token);
  if ("retryAfterMs" in tried) throw tooManyWrongTokens(tried.retryAfterMs, tried.reason);
  return tried.actor;
}

/**
 * Wrong names and passwords count against the address and the name, from the moment the check starts:
 * concurrent guesses each hold a try while their scrypt runs.
 */
async function passwordLogin(
  ctx: ApiContext,
  address: string,
  body: { username: string; password: string },
): Promise<Actor | null> {
  const gate = ctx.passwords.begin(address, body.username);
  if (!gate.ok) throw tooManyWrongTokens(gate.retryAfterMs, gate.reason, "passwords");
  let actor: Actor | null = null;
  try {
    actor = await ctx.accounts.byPassword(body.username, body.password);
    return actor;
  } finally {
    gate.attempt.finish(actor !== null);
  }
}

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

// Accounts (admin only, enforced by the router): list, create (the API token is answered once),
// change role / password / disabled / token, delete. Every change is audited; a new password ends the
// account's logins (but the caller's own when it changes its own).
import {
  accountListSchema,
  accountParamsSchema,
  createAccountBodySchema,
  createdAccountSchema,
  updateAccountBodySchema,
  updatedAccountSchema,
} from "../../../lib/api/accounts";
import { AccountError } from "../../accounts/accounts";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

const STATUS = { not_found: 404, conflict: 409, invalid: 400 } as const;

/** An account rule broken (a taken name, the last admin) answers its status with the rule's message. */
async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AccountError) throw new HttpError(STATUS[error.kind], error.message);
    throw error;
  }
}

export const listAccountsRoute = apiRoute({
  method: "GET",
  path: "/api/accounts",
  access: "admin",
  response: accountListSchema,
  async handle(_input, ctx) {
    return { body: { accounts: ctx.accounts.list() } };
  },
});

export const createAccountRoute = apiRoute({
  method: "POST",
  path: "/api/accounts",
  access: "admin",
  body: createAccountBodySchema,
  response: createdAccountSchema,
  async handle({ body, actor }, ctx) {
    const { account, token } = await answering(() => ctx.accounts.create(body));
    await ctx.audit.record({ actor, action: "account.create", target: `account:${account.id}`, after: account });
    return { status: 201, body: { id: account.id, token } };
  },
});

export const updateAccountRoute = apiRoute({
  method: "PATCH",
  path: "/api/accounts/:id",
  access: "admin",
  params: accountParamsSchema,
  body: updateAccountBodySchema,
  response: updatedAccountSchema,
  async handle({ params, body, actor }, ctx, info) {
    if (Object.keys(body).length === 0) throw new HttpError(400, "nothing to change");
    const result = await answering(() => ctx.accounts.update(params.id, body));
    // A new password ends the account's logins made with the old one: all of them when an admin sets
    // another's, all but the one making the change when it is the account's own.
    const loginsEnded = body.password
      ? await ctx.auth.logins.revokeAccount(params.id, actor.id === params.id ? info.loginHash : undefined)
      : 0;
    await ctx.audit.record({
      actor,
      action: "account.update",
      target: `account:${params.id}`,
      before: result.before,
      // Which secrets changed, never the secrets.
      after: {
        ...result.account,
        ...(body.password ? { passwordChanged: true, loginsEnded } : {}),
        ...(body.rotateToken ? { tokenRotated: true } : {}),
      },
    });
    return { body: { account: result.account, ...(result.token ? { token: result.token } : {}) } };
  },
});

export const deleteAccountRoute = apiRoute({
  method: "DELETE",
  path: "/api/accounts/:id",
  access: "admin",
  params: accountParamsSchema,
  async handle({ params, actor }, ctx) {
    const before = await answering(() => ctx.accounts.remove(params.id));
    await ctx.audit.record({ actor, action: "account.delete", target: `account:${params.id}`, before });
    return { status: 204 };
  },
});

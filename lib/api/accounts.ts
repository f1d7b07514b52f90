// Wire shapes of accounts, roles, login sessions and the audit trail (docs/interface.md#accounts-and-roles).
import { z } from "zod";

export const roleSchema = z.enum(["admin", "operator", "viewer"]);
export type Role = z.infer<typeof roleSchema>;

/** Who acts: every route handler receives it, every audit entry names it. */
export const actorSchema = z.object({ id: z.string(), name: z.string(), role: roleSchema });
export type Actor = z.infer<typeof actorSchema>;

/** The implicit account of the operator token (MAISAKA_ADMIN_TOKEN / data/admin-token). */
export const BOOTSTRAP_ACCOUNT_ID = "bootstrap";

const accountNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}_.@-]+$/u, "letters, digits and _ . @ - only");
const passwordSchema = z.string().min(8, "at least 8 characters").max(256);

/** The credentials a login may carry: a token (operator or API), or an account's name and password. */
export type LoginCredentials = { token: string } | { username: string; password: string };

/** One object (so a missing part is named as a field), then exactly one of the two forms. */
export const loginBodySchema = z
  .object({
    token: z.string().min(1).max(512).optional(),
    username: z.string().min(1).max(64).optional(),
    password: z.string().min(1).max(256).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const byPassword = b.username !== undefined || b.password !== undefined;
    if (b.token !== undefined && byPassword) {
      ctx.addIssue({ code: "custom", path: ["token"], message: "send a token or a name and password, not both" });
    } else if (b.token === undefined && !byPassword) {
      ctx.addIssue({ code: "custom", path: ["token"], message: "a token, or a username and password, is required" });
    } else if (byPassword) {
      if (b.username === undefined) ctx.addIssue({ code: "custom", path: ["username"], message: "required" });
      if (b.password === undefined) ctx.addIssue({ code: "custom", path: ["password"], message: "required" });
    }
  })
  .transform((b): LoginCredentials =>
    b.token !== undefined ? { token: b.token } : { username: b.username ?? "", password: b.password ?? "" },
  );
export type LoginBody = z.input<typeof loginBodySchema>;

/**
 * GET /api/auth/hint (public): where the operator token comes from, for the login page's help — the
 * environment variable, or the file in the data folder (its real path, MAISAKA_DATA_DIR's if moved);
 * never the token. null: the server was not told (a server started by a test).
 */
export const loginHintSchema = z.object({
  operatorToken: z
    .discriminatedUnion("from", [
      z.object({ from: z.literal("env") }),
      z.object({ from: z.literal("file"), path: z.string() }),
    ])
    .nullable(),
});
export type LoginHint = z.infer<typeof loginHintSchema>;

export const authMeSchema = z.object({
  authenticated: z.boolean(),
  via: z.enum(["bearer", "cookie"]),
  account: actorSchema,
});

export const accountViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: roleSchema,
  hasPassword: z.boolean(),
  hasToken: z.boolean(),
  /** The operator token's account: its credential is configured, not stored. */
  bootstrap: z.boolean(),
  createdAt: z.number(),
  disabledAt: z.number().nullable(),
});
export type AccountView = z.infer<typeof accountViewSchema>;
export const accountListSchema = z.object({ accounts: z.array(accountViewSchema) });

export const createAccountBodySchema = z
  .object({ name: accountNameSchema, role: roleSchema, password: passwordSchema.optional() })
  .strict();
export type CreateAccountBody = z.infer<typeof createAccountBodySchema>;
/** The API token is in this answer only (the server keeps its hash). */
export const createdAccountSchema = z.object({ id: z.string(), token: z.string() });

export const accountParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const updateAccountBodySchema = z
  .object({
    role: roleSchema.optional(),
    password: passwordSchema.optional(),
    disabled: z.boolean().optional(),
    rotateToken: z.literal(true).optional(),
  })
  .strict();
export type UpdateAccountBody = z.infer<typeof updateAccountBodySchema>;
/** `token` only when rotateToken was asked for. */
export const updatedAccountSchema = z.object({ account: accountViewSchema, token: z.string().optional() });

export const loginSessionViewSchema = z.object({
  /** SHA-256 of the cookie's login id: names the login without being usable as a cookie. */
  id: z.string(),
  account: z.object({ id: z.string(), name: z.string(), role: roleSchema.nullable() }),
  createdAt: z.number(),
  lastSeenAt: z.number(),
  expiresAt: z.number(),
  address: z.string(),
  /** The login of the request that lists them. */
  current: z.boolean(),
});
export const loginSessionListSchema = z.object({ sessions: z.array(loginSessionViewSchema) });
export const loginSessionParamsSchema = z.object({ id: z.string().min(1).max(128) });

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.number(),
  actor: z.object({ id: z.string(), name: z.string() }),
  action: z.string(),
  target: z.string(),
  /** What the target is called (a session's or account's name, a memory's text); null: the target is a name. */
  targetName: z.string().nullable().optional(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string(),
});

const timeSchema = z.coerce.number().finite().min(0);
export const auditListQuerySchema = z.object({
  /** An account id or name. */
  actor: z.string().max(64).optional(),
  action: z.string().max(64).optional(),
  /** Substring of the target. */
  target: z.string().max(256).optional(),
  from: timeSchema.optional(),
  to: timeSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** The nextCursor of the page before. */
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, "not a cursor")
    .optional(),
});
export type AuditListQuery = z.infer<typeof auditListQuerySchema>;
export const auditPageSchema = z.object({ entries: z.array(auditEntrySchema), nextCursor: z.string().nullable() });

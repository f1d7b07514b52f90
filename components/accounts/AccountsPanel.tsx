"use client";
// Accounts (admins only; the API refuses everyone else): create one (its API token is shown once,
// with a copy button), change its role, password or token, disable or delete it; and every live login
// with a revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { AccountView, Role, UpdateAccountBody } from "../../lib/api/accounts";
import { api } from "../../lib/client/api";
import { formatDateTime } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useAccount } from "../../lib/client/react/use-account";
import { CopyButton } from "../ui/CopyButton";
import { describeError, ErrorState } from "../ui/States";

const ROLES: readonly Role[] = ["admin", "operator", "viewer"];
const ROLE_HELP: Record<Role, string> = {
  admin: "everything, accounts and logins included",
  operator: "everything but accounts",
  viewer: "read only",
};

export function AccountsPanel() {
  const me = useAccount();
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: queryKeys.accounts, queryFn: api.accounts, enabled: me?.role === "admin" });
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.accounts });
    void queryClient.invalidateQueries({ queryKey: queryKeys.loginSessions });
  };
  const update = useMutation({
    mutationFn: (v: { account: AccountView; body: UpdateAccountBody }) => api.updateAccount(v.account.id, v.body),
    onSuccess: (result, v) => {
      setProblem(null);
      if (result.token) setIssued({ name: v.account.name, token: result.token });
      refresh();
    },
    onError: (error) => setProblem(describeError(error)),
  });
  const remove = useMutation({
    mutationFn: (account: AccountView) => api.deleteAccount(account.id),
    onSuccess: () => {
      setProblem(null);
      refresh();
    },
    onError: (error) => setProblem(describeError(error)),
  });

  if (me && me.role !== "admin") {
    return (
      <div className="page">
        <h1>Accounts</h1>
        <p className="muted">Only an admin manages accounts.</p>
      </div>
    );
  }
  const rows = accounts.data?.accounts ?? [];
  return (
    <div className="page" data-testid="accounts-page">
      <div className="page-head">
        <h1>Accounts</h1>
        <span className="muted">{accounts.data ? `${rows.length} total` : ""}</span>
      </div>
      <CreateAccountForm
        onCreated={(name, token) => {
          setIssued({ name, token });
          refresh();
        }}
      />
      {issued && (
        <div className="panel token-once" role="status" data-testid="issued-token">
          <div>
            API token of <b>{issued.name}</b>, shown only now (the server keeps its hash):
          </div>
          <code className="mono token-value">{issued.token}</code>
          <CopyButton text={() => issued.token} label="Copy token" />
          <button type="button" className="btn btn-sm" onClick={() => setIssued(null)}>
            Done
          </button>
        </div>
      )}
      {problem && (
        <div className="form-error" role="alert">
          {problem}
        </div>
      )}
      {accounts.isError && <ErrorState title="Cannot load the accounts" error={accounts.error} />}
      <table className="table" aria-label="Accounts">
        <thead>
          <tr>
            <th>Name</th>
            <th>Role</th>
            <th>Sign-in</th>
            <th>Created</th>
            <th>State</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id} data-account={a.name} className={a.disabledAt ? "muted" : undefined}>
              <td>
                {a.name}
                {a.bootstrap && (
                  <span className="muted small" title="The operator token (MAISAKA_ADMIN_TOKEN / data/admin-token)">
                    {" "}
                    (operator token)
                  </span>
                )}
                {a.id === me?.id && <span className="muted small"> (you)</span>}
              </td>
              <td>
                <select
                  className="input input-sm"
                  aria-label={`Role of ${a.name}`}
                  value={a.role}
                  disabled={a.bootstrap || update.isPending}
                  onChange={(e) => update.mutate({ account: a, body: { role: e.target.value as Role } })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r} title={ROLE_HELP[r]}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td className="small">
                {a.bootstrap
                  ? "configured token"
                  : [a.hasPassword && "password", a.hasToken && "API token"].filter(Boolean).join(" + ") || "none"}
              </td>
              <td className="small">{formatDateTime(a.createdAt)}</td>
              <td className="small">{a.disabledAt ? `disabled ${formatDateTime(a.disabledAt)}` : "enabled"}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => update.mutate({ account: a, body: { disabled: !a.disabledAt } })}
                >
                  {a.disabledAt ? "Enable" : "Disable"}
                </button>
                {!a.bootstrap && (
                  <>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => update.mutate({ account: a, body: { rotateToken: true } })}
                    >
                      New token
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => {
                        const password = window.prompt(`New password for ${a.name} (at least 8 characters)`);
                        if (password) update.mutate({ account: a, body: { password } });
                      }}
                    >
                      Set password
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm btn-danger"
                      onClick={() => {
                        if (window.confirm(`Delete the account ${a.name}? Its logins end at once.`)) remove.mutate(a);
                      }}
                    >
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoginSessionsTable />
    </div>
  );
}

function CreateAccountForm({ onCreated }: { onCreated: (name: string, token: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: api.createAccount,
    onError: (e) => setError(describeError(e)),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const field = (key: string) => {
      const value = data.get(key);
      return typeof value === "string" ? value : "";
    };
    const name = field("name").trim();
    const role = (field("role") || "viewer") as Role; // the select offers only roles
    const password = field("password");
    setError(null);
    create.mutate(
      { name, role, ...(password ? { password } : {}) },
      {
        onSuccess: (created) => {
          form.reset();
          onCreated(name, created.token);
        },
      },
    );
  };
  return (
    <form className="toolbar" onSubmit={submit} aria-label="New account">
      <input className="input input-sm" name="name" placeholder="Name" aria-label="New account name" required />
      <select className="input input-sm" name="role" aria-label="New account role" defaultValue="viewer">
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r} — {ROLE_HELP[r]}
          </option>
        ))}
      </select>
      <input
        className="input input-sm"
        name="password"
        type="password"
        autoComplete="new-password"
        placeholder="Password (optional)"
        aria-label="New account password"
        minLength={8}
      />
      <button className="btn btn-sm btn-primary" disabled={create.isPending}>
        Create account
      </button>
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function LoginSessionsTable() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: queryKeys.loginSessions, queryFn: api.loginSessions });
  const revoke = useMutation({
    mutationFn: api.revokeLoginSession,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.loginSessions }),
  });
  const rows = sessions.data?.sessions ?? [];
  return (
    <section className="panel" aria-label="Logins">
      <div className="panel-title">Logins ({rows.length})</div>
      {sessions.isError && <ErrorState title="Cannot load the logins" error={sessions.error} />}
      <table className="table">
        <thead>
          <tr>
            <th>Account</th>
            <th>Role</th>
            <th>Address</th>
            <th>Logged in</th>
            <th>Last seen</th>
            <th>Expires</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id} data-login={s.account.name}>
              <td>
                {s.account.name}
                {s.current && <span className="muted small"> (this browser)</span>}
              </td>
              <td className="small">{s.account.role ?? "deleted"}</td>
              <td className="mono small">{s.address || "—"}</td>
              <td className="small">{formatDateTime(s.createdAt)}</td>
              <td className="small">{formatDateTime(s.lastSeenAt)}</td>
              <td className="small">{formatDateTime(s.expiresAt)}</td>
              <td>
                <button
                  type="button"
                  className="btn btn-sm"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate(s.id)}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

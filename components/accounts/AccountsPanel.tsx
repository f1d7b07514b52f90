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
import { useT } from "../../lib/client/react/use-locale";
import { CopyButton } from "../ui/CopyButton";
import { describeError, ErrorState } from "../ui/States";

const ROLES: readonly Role[] = ["admin", "operator", "viewer"];

export function AccountsPanel() {
  const t = useT();
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
        <h1>{t("accounts.title")}</h1>
        <p className="muted">{t("accounts.adminOnly")}</p>
      </div>
    );
  }
  const rows = accounts.data?.accounts ?? [];
  return (
    <div className="page" data-testid="accounts-page">
      <div className="page-head">
        <h1>{t("accounts.title")}</h1>
        <span className="muted">{accounts.data ? t("accounts.total", { count: rows.length }) : ""}</span>
      </div>
      <CreateAccountForm
        onCreated={(name, token) => {
          setIssued({ name, token });
          refresh();
        }}
      />
      {issued && (
        <div className="panel token-once" role="status" data-testid="issued-token">
          <div>{t("accounts.issued", { name: issued.name })}</div>
          <code className="mono token-value">{issued.token}</code>
          <CopyButton text={() => issued.token} label={t("accounts.copyToken")} />
          <button type="button" className="btn btn-sm" onClick={() => setIssued(null)}>
            {t("accounts.done")}
          </button>
        </div>
      )}
      {problem && (
        <div className="form-error" role="alert">
          {problem}
        </div>
      )}
      {accounts.isError && <ErrorState title={t("accounts.loadError")} error={accounts.error} />}
      <table className="table" aria-label={t("accounts.title")}>
        <thead>
          <tr>
            <th>{t("accounts.col.name")}</th>
            <th>{t("accounts.col.role")}</th>
            <th>{t("accounts.col.signIn")}</th>
            <th>{t("accounts.col.created")}</th>
            <th>{t("accounts.col.state")}</th>
            <th aria-label={t("accounts.col.actions")} />
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id} data-account={a.name} className={a.disabledAt ? "muted" : undefined}>
              <td>
                {a.name}
                {a.bootstrap && (
                  <span className="muted small" title={t("accounts.bootstrapTitle")}>
                    {" "}
                    {t("accounts.bootstrap")}
                  </span>
                )}
                {a.id === me?.id && <span className="muted small"> {t("accounts.you")}</span>}
              </td>
              <td>
                <select
                  className="input input-sm"
                  aria-label={t("accounts.roleOf", { name: a.name })}
                  value={a.role}
                  disabled={a.bootstrap || update.isPending}
                  onChange={(e) => update.mutate({ account: a, body: { role: e.target.value as Role } })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r} title={t(`accounts.role.${r}`)}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td className="small">
                {a.bootstrap
                  ? t("accounts.signIn.configured")
                  : [a.hasPassword && t("accounts.signIn.password"), a.hasToken && t("accounts.signIn.token")]
                      .filter(Boolean)
                      .join(" + ") || t("accounts.signIn.none")}
              </td>
              <td className="small">{formatDateTime(a.createdAt)}</td>
              <td className="small">
                {a.disabledAt
                  ? t("accounts.disabledAt", { when: formatDateTime(a.disabledAt) })
                  : t("accounts.enabled")}
              </td>
              <td className="row-actions">
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => update.mutate({ account: a, body: { disabled: !a.disabledAt } })}
                >
                  {t(a.disabledAt ? "accounts.enable" : "accounts.disable")}
                </button>
                {!a.bootstrap && (
                  <>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => update.mutate({ account: a, body: { rotateToken: true } })}
                    >
                      {t("accounts.newToken")}
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => {
                        const password = window.prompt(t("accounts.passwordPrompt", { name: a.name }));
                        if (password) update.mutate({ account: a, body: { password } });
                      }}
                    >
                      {t("accounts.setPassword")}
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm btn-danger"
                      onClick={() => {
                        if (window.confirm(t("accounts.deleteConfirm", { name: a.name }))) remove.mutate(a);
                      }}
                    >
                      {t("accounts.delete")}
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
  const t = useT();
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
    <form className="toolbar" onSubmit={submit} aria-label={t("accounts.new")}>
      <input
        className="input input-sm"
        name="name"
        placeholder={t("accounts.col.name")}
        aria-label={t("accounts.newName")}
        required
      />
      <select className="input input-sm" name="role" aria-label={t("accounts.newRole")} defaultValue="viewer">
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r} — {t(`accounts.role.${r}`)}
          </option>
        ))}
      </select>
      <input
        className="input input-sm"
        name="password"
        type="password"
        autoComplete="new-password"
        placeholder={t("accounts.password")}
        aria-label={t("accounts.newPassword")}
        minLength={8}
      />
      <button className="btn btn-sm btn-primary" disabled={create.isPending}>
        {t("accounts.create")}
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
  const t = useT();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: queryKeys.loginSessions, queryFn: api.loginSessions });
  const revoke = useMutation({
    mutationFn: api.revokeLoginSession,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.loginSessions }),
  });
  const rows = sessions.data?.sessions ?? [];
  return (
    <section className="panel" aria-label={t("accounts.logins")}>
      <div className="panel-title">{t("accounts.loginsCount", { count: rows.length })}</div>
      {sessions.isError && <ErrorState title={t("accounts.loginsError")} error={sessions.error} />}
      <table className="table">
        <thead>
          <tr>
            <th>{t("accounts.col.account")}</th>
            <th>{t("accounts.col.role")}</th>
            <th>{t("accounts.col.address")}</th>
            <th>{t("accounts.col.loggedIn")}</th>
            <th>{t("accounts.col.lastSeen")}</th>
            <th>{t("accounts.col.expires")}</th>
            <th aria-label={t("accounts.col.actions")} />
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id} data-login={s.account.name}>
              <td>
                {s.account.name}
                {s.current && <span className="muted small"> {t("accounts.thisBrowser")}</span>}
              </td>
              <td className="small">{s.account.role ?? t("accounts.deletedAccount")}</td>
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
                  {t("accounts.revoke")}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

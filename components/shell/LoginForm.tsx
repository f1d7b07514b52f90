"use client";
// Exchanges a token (the operator token or an account's API token) or an account's name and password
// for the httpOnly login cookie; no credential is kept in the page. The inputs are uncontrolled: a
// token pasted (or filled by a password manager) before the page hydrates still counts.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiRequestError, api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { safeNextPath } from "../../lib/client/safe-next";
import { describeError } from "../ui/States";

/** Only same-site paths: an attacker-supplied ?next= must not send the operator elsewhere. */
const safeNext = (): string =>
  safeNextPath(new URLSearchParams(window.location.search).get("next"), window.location.origin);

const text = (form: FormData, name: string): string => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};

export function LoginForm() {
  const t = useT();
  const [mode, setMode] = useState<"token" | "password">("token");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();
  // Where this server keeps the operator token (the data folder may have moved): said as it is.
  const hint = useQuery({ queryKey: queryKeys.loginHint, queryFn: api.loginHint, retry: false, staleTime: Infinity });
  const place = hint.data?.operatorToken;

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const token = text(form, "token").trim();
    const username = text(form, "username").trim();
    const password = text(form, "password");
    if (mode === "token" ? !token : !username || !password) return;
    setBusy(true);
    setError(null);
    try {
      await api.login(mode === "token" ? { token } : { username, password });
      queryClient.clear();
      window.location.assign(safeNext());
    } catch (err) {
      setError(
        err instanceof ApiRequestError && err.status === 401
          ? mode === "token"
            ? t("login.badToken")
            : t("login.badPassword")
          : describeError(err),
      );
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <form className="login-card" onSubmit={(e) => void submit(e)}>
        <h1>{t("login.title")}</h1>
        <div className="login-modes" role="group" aria-label={t("login.how")}>
          <button
            type="button"
            className={`btn btn-sm${mode === "token" ? " btn-primary" : ""}`}
            aria-pressed={mode === "token"}
            onClick={() => setMode("token")}
          >
            {t("login.withToken")}
          </button>
          <button
            type="button"
            className={`btn btn-sm${mode === "password" ? " btn-primary" : ""}`}
            aria-pressed={mode === "password"}
            onClick={() => setMode("password")}
          >
            {t("login.withPassword")}
          </button>
        </div>
        {mode === "token" ? (
          <>
            <p className="muted">
              {t("login.tokenHelp")}{" "}
              {place?.from === "file" ? (
                <>
                  {t("login.tokenInFile")} <code className="text">{place.path}</code>
                </>
              ) : place?.from === "env" ? (
                t("login.tokenFromEnv")
              ) : (
                t("login.tokenAtStart")
              )}
            </p>
            <label className="field">
              <span>{t("login.token")}</span>
              <input
                className="input"
                type="password"
                autoComplete="current-password"
                autoFocus
                name="token"
                required
              />
            </label>
          </>
        ) : (
          <>
            <label className="field">
              <span>{t("login.name")}</span>
              <input className="input" autoComplete="username" autoFocus name="username" required />
            </label>
            <label className="field">
              <span>{t("login.password")}</span>
              <input className="input" type="password" autoComplete="current-password" name="password" required />
            </label>
          </>
        )}
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        <button className="btn btn-primary" disabled={busy}>
          {t(busy ? "login.checking" : "login.submit")}
        </button>
      </form>
    </div>
  );
}

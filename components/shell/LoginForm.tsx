"use client";
// Exchanges the operator token for the httpOnly login cookie; the token is not kept in the page.
// The input is uncontrolled: a token pasted (or filled by a password manager) before the page
// hydrates still counts.
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiRequestError, api } from "../../lib/client/api";
import { describeError } from "../ui/States";

/** Only same-site paths: an attacker-supplied ?next= must not send the operator elsewhere. */
function safeNext(): string {
  const next = new URLSearchParams(window.location.search).get("next") ?? "/";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") && !next.startsWith("/login")
    ? next
    : "/";
}

export function LoginForm() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const field = new FormData(e.currentTarget).get("token");
    const token = typeof field === "string" ? field.trim() : "";
    if (!token) return;
    setBusy(true);
    setError(null);
    try {
      await api.login(token);
      queryClient.clear();
      window.location.assign(safeNext());
    } catch (err) {
      setError(
        err instanceof ApiRequestError && err.status === 401
          ? "That token is not the operator token of this server."
          : describeError(err),
      );
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <form className="login-card" onSubmit={(e) => void submit(e)}>
        <h1>Operator login</h1>
        <p className="muted">
          Paste the operator token. It is printed when the server starts, stored in <code>data/admin-token</code>, or
          set with <code>MAISAKA_ADMIN_TOKEN</code>.
        </p>
        <label className="field">
          <span>Token</span>
          <input className="input" type="password" autoComplete="current-password" autoFocus name="token" required />
        </label>
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        <button className="btn btn-primary" disabled={busy}>
          {busy ? "Checking…" : "Log in"}
        </button>
      </form>
    </div>
  );
}

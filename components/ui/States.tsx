// Empty, loading and error states that say what to do next.
import type { ReactNode } from "react";
import { ApiRequestError, NetworkError } from "../../lib/client/api";

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="state state-empty">
      <div className="state-title">{title}</div>
      {children && <div className="state-body">{children}</div>}
      {action && <div className="state-action">{action}</div>}
    </div>
  );
}

export function describeError(error: unknown): string {
  if (error instanceof NetworkError)
    return "The server did not answer. Is `npm start` running? The page retries on its own.";
  if (error instanceof ApiRequestError) {
    if (error.status === 404) return "Not found: it may have been deleted, or the link is wrong.";
    const fields = error.fields.map((f) => `${f.path}: ${f.message}`).join("; ");
    return `${error.message}${fields ? ` (${fields})` : ""}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorState({ title, error, action }: { title: string; error: unknown; action?: ReactNode }) {
  return (
    <div className="state state-error" role="alert">
      <div className="state-title">{title}</div>
      <div className="state-body">{describeError(error)}</div>
      {action && <div className="state-action">{action}</div>}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <div className="state state-loading" aria-busy="true">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

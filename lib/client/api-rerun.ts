// Re-runs and what-if forks from the dashboard (lib/rerun/schemas.ts): POST /api/sessions/:id/rerun
// and GET /api/sessions/:id/branches, answers checked with their wire schemas.
import {
  rerunResponseSchema,
  sessionBranchesResponseSchema,
  type RerunRequest,
  type RerunResponse,
  type SessionBranch,
} from "../rerun/schemas";
import { fetchJson, parseAnswer } from "./api";

/** Under the session's own key, so what refreshes a session refreshes its branches. */
export const branchesQueryKey = (id: string) => ["session", id, "branches"] as const;

const enc = encodeURIComponent;

/** 404 unknown session, 400 a malformed body, 409 a session that cannot be re-run: ApiRequestError. */
export async function startRerun(sessionId: string, body: RerunRequest): Promise<RerunResponse> {
  const path = `/api/sessions/${enc(sessionId)}/rerun`;
  const { status, body: answer } = await fetchJson(path, { method: "POST", body: JSON.stringify(body) });
  return parseAnswer(rerunResponseSchema, answer, path, status);
}

/** The sessions derived from this one, newest first. */
export async function fetchBranches(sessionId: string): Promise<SessionBranch[]> {
  const path = `/api/sessions/${enc(sessionId)}/branches`;
  const { status, body } = await fetchJson(path);
  return parseAnswer(sessionBranchesResponseSchema, body, path, status).branches;
}

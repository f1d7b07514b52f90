// The re-run / fork dialog's state, UI-agnostic: what the operator typed per field, and its conversion
// to the POST /api/sessions/:id/rerun body. Every edit and setting is checked here (required fields)
// and then by the wire schema itself (limits), so the dialog never sends what the server would refuse
// as malformed, and never silently leaves an edit out.
import {
  rerunRequestSchema,
  type ContinueWith,
  type ForkEdit,
  type RerunRequest,
  type RerunSettings,
} from "../rerun/schemas";

export type EditKind = ForkEdit["kind"];
export const EDIT_KINDS: readonly EditKind[] = ["drop_message", "add_message", "tool_output", "tool_off"];

/** One fork edit as typed (strings as in the inputs). */
export type EditDraft =
  | { kind: "drop_message"; messageId: string }
  /** userId "": the name is a new speaker (`fork:<name>`); a known speaker's id when picked. */
  | { kind: "add_message"; userId: string; userName: string; text: string; atBot: boolean }
  | { kind: "tool_output"; toolCallId: string; content: string; success: boolean }
  | { kind: "tool_off"; toolName: string };

export const PROMPT_OVERRIDE_LOCALES = ["", "zh-CN", "en"] as const;
export type PromptOverrideLocale = (typeof PROMPT_OVERRIDE_LOCALES)[number];

export interface PromptOverrideDraft {
  /** A template name (GET /api/settings promptNames). */
  name: string;
  /** "": every locale ("<name>"), else "<locale>:<name>". */
  locale: PromptOverrideLocale;
  text: string;
}

export interface RerunDraft {
  /** A re-run replays the session (or from a cycle); a fork starts at a cycle with edits. */
  mode: "rerun" | "fork";
  /** The original's cycle id; null: the whole session. */
  fromCycle: string | null;
  continueWith: ContinueWith;
  liveReadOnlyTools: boolean;
  name: string;
  edits: EditDraft[];
  /** chat.talkValue as typed; "": unchanged. */
  talkValue: string;
  prompts: PromptOverrideDraft[];
}

/** The server's defaults, chosen explicitly so the dialog shows what will happen. */
export function emptyDraft(mode: RerunDraft["mode"], fromCycle: string | null = null): RerunDraft {
  return {
    mode,
    fromCycle,
    continueWith: mode === "fork" ? "model" : "stop",
    liveReadOnlyTools: false,
    name: "",
    edits: [],
    talkValue: "",
    prompts: [],
  };
}

export function newEdit(kind: EditKind): EditDraft {
  switch (kind) {
    case "drop_message":
      return { kind, messageId: "" };
    case "add_message":
      return { kind, userId: "", userName: "", text: "", atBot: false };
    case "tool_output":
      return { kind, toolCallId: "", content: "", success: true };
    case "tool_off":
      return { kind, toolName: "" };
  }
}

/** Why a draft cannot be sent: the field (dotted, as the form names it) and what is wrong. */
export interface DraftProblem {
  path: string;
  code: "required" | "notNumber" | "duplicate" | "invalid";
  /** The wire schema's own message (code "invalid"). */
  detail?: string;
}

export type DraftOutcome = { ok: true; request: RerunRequest } | { ok: false; problems: DraftProblem[] };

function editOf(draft: EditDraft): ForkEdit {
  switch (draft.kind) {
    case "drop_message":
      return { kind: "drop_message", messageId: draft.messageId.trim() };
    case "add_message": {
      const userName = draft.userName.trim();
      return {
        kind: "add_message",
        userId: draft.userId.trim() || `fork:${userName}`,
        userName,
        text: draft.text,
        ...(draft.atBot ? { atBot: true, mentionsBot: true } : {}),
      };
    }
    case "tool_output":
      return {
        kind: "tool_output",
        toolCallId: draft.toolCallId.trim(),
        content: draft.content,
        success: draft.success,
      };
    case "tool_off":
      return { kind: "tool_off", toolName: draft.toolName.trim() };
  }
}

function requiredOf(draft: EditDraft): string[] {
  switch (draft.kind) {
    case "drop_message":
      return draft.messageId.trim() ? [] : ["messageId"];
    case "add_message":
      return [...(draft.userName.trim() ? [] : ["userName"]), ...(draft.text.trim() ? [] : ["text"])];
    case "tool_output":
      return draft.toolCallId.trim() ? [] : ["toolCallId"];
    case "tool_off":
      return draft.toolName.trim() ? [] : ["toolName"];
  }
}

/** The same thing twice (a message dropped twice, a tool switched off twice) is a slip, not an intent. */
function duplicateKey(edit: ForkEdit): string | null {
  if (edit.kind === "drop_message") return `drop:${edit.messageId}`;
  if (edit.kind === "tool_off") return `off:${edit.toolName}`;
  if (edit.kind === "tool_output") return `output:${edit.toolCallId}`;
  return null;
}

export function promptKey(p: PromptOverrideDraft): string {
  return p.locale ? `${p.locale}:${p.name.trim()}` : p.name.trim();
}

function settingsOf(draft: RerunDraft, problems: DraftProblem[]): RerunSettings | undefined {
  const settings: RerunSettings = {};
  const talk = draft.talkValue.trim();
  if (talk) {
    const value = Number(talk);
    if (!Number.isFinite(value) || value < 0) problems.push({ path: "talkValue", code: "notNumber" });
    else settings.chat = { talkValue: value };
  }
  const prompts: Record<string, string> = {};
  draft.prompts.forEach((p, i) => {
    if (!p.name.trim()) problems.push({ path: `prompts.${i}.name`, code: "required" });
    if (!p.text.trim()) problems.push({ path: `prompts.${i}.text`, code: "required" });
    const key = promptKey(p);
    if (key in prompts) problems.push({ path: `prompts.${i}.name`, code: "duplicate" });
    prompts[key] = p.text;
  });
  if (draft.prompts.length) settings.prompts = prompts;
  return settings.chat || settings.prompts ? settings : undefined;
}

/** The request body, or every problem found (none sent then). */
export function toRerunRequest(draft: RerunDraft): DraftOutcome {
  const problems: DraftProblem[] = [];
  if (draft.mode === "fork" && !draft.fromCycle) problems.push({ path: "fromCycle", code: "required" });
  const seen = new Set<string>();
  const edits = draft.edits.map((d, i) => {
    for (const field of requiredOf(d)) problems.push({ path: `edits.${i}.${field}`, code: "required" });
    const edit = editOf(d);
    const key = duplicateKey(edit);
    if (key && requiredOf(d).length === 0) {
      if (seen.has(key)) problems.push({ path: `edits.${i}`, code: "duplicate" });
      seen.add(key);
    }
    return edit;
  });
  const settings = settingsOf(draft, problems);
  const name = draft.name.trim();
  const request: RerunRequest = {
    ...(draft.fromCycle ? { fromCycle: draft.fromCycle } : {}),
    ...(settings ? { settings } : {}),
    ...(edits.length ? { edits } : {}),
    continueWith: draft.continueWith,
    ...(draft.liveReadOnlyTools ? { liveReadOnlyTools: true } : {}),
    ...(name ? { name } : {}),
  };
  if (problems.length) return { ok: false, problems };
  // The wire schema has the limits (lengths, counts); its refusal is named by field too.
  const parsed = rerunRequestSchema.safeParse(request);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => ({
        path: issue.path.join("."),
        code: "invalid",
        detail: issue.message,
      })),
    };
  return { ok: true, request: parsed.data };
}

/** The problem of one field (the form shows it beside the input). */
export function problemAt(problems: readonly DraftProblem[], path: string): DraftProblem | undefined {
  return problems.find((p) => p.path === path);
}

// One line of a simulation script (docs/interface.md#simulation-script): a chat message fed at `at` ms from the start.
import { z } from "zod";
import type { ChatMessageRecord } from "../chat/runtime-snapshot";

export const scriptLineSchema = z
  .object({
    at: z.number().min(0),
    userId: z.string().min(1),
    userName: z.string().min(1),
    groupCard: z.string().optional(),
    text: z.string(),
    mentionsBot: z.boolean().default(false),
    atBot: z.boolean().default(false),
    messageId: z.string().min(1).optional(),
    replyTo: z.string().optional(),
    forward: z.array(z.object({ sender: z.string(), text: z.string() })).optional(),
  })
  .strict();
export type ScriptLine = z.infer<typeof scriptLineSchema>;

export class ScriptError extends Error {
  override name = "ScriptError";
}

/** Parses a JSON-lines script; blank lines and lines starting with // are skipped. */
export function parseScript(text: string, source = "script"): ScriptLine[] {
  const out: ScriptLine[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("//")) return;
    let raw: unknown;
    try {
      raw = JSON.parse(trimmed);
    } catch (error) {
      throw new ScriptError(
        `${source}:${i + 1}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const parsed = scriptLineSchema.safeParse(raw);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((x) => `${x.path.join(".") || "(line)"}: ${x.message}`).join("; ");
      throw new ScriptError(`${source}:${i + 1}: ${fields}`);
    }
    out.push(parsed.data);
  });
  return out.sort((a, b) => a.at - b.at);
}

/** The chat message a script line stands for (its id `m<n>` when the line names none), arriving at `ts`. */
export function scriptMessage(line: ScriptLine, index: number, sessionId: string, ts: number): ChatMessageRecord {
  return {
    sessionId,
    messageId: line.messageId ?? `m${index + 1}`,
    direction: "inbound",
    userId: line.userId,
    userName: line.userName,
    groupCard: line.groupCard,
    text: line.text,
    forward: line.forward,
    atBot: line.atBot,
    // Absent rather than false: the runtime then detects a mention by name itself.
    mentionsBot: line.mentionsBot || undefined,
    replyTo: line.replyTo ?? null,
    ts,
  };
}

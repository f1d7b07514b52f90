// Learning from chat: messages trimmed out of a session's history pass through a small extraction
// step on the utils model, which yields jargon, memories and person profiles for the stores.
// Runs in the background, one batch at a time per session; a failure is logged and dropped.
import { z } from "zod";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { parseJsonObject, transcript } from "./context/transcript";
import { promptOptions, renderPrompt } from "./prompts/templates";

const extractionSchema = z.object({
  jargon: z.array(z.object({ word: z.string().min(1), meaning: z.string().min(1) })).catch([]),
  memories: z.array(z.string().min(1)).catch([]),
  persons: z
    .array(
      z.object({
        name: z.string().min(1),
        summary: z.string().default(""),
        traits: z.array(z.string()).default([]),
        facts: z.array(z.string()).default([]),
      }),
    )
    .catch([]),
});

/** Only real chat text is worth learning from. */
const MIN_CHAT_LINES = 3;

export class SessionLearner {
  private chain: Promise<void> = Promise.resolve();
  /** Aborts the in-flight extraction call when the session stops. */
  private readonly stopController = new AbortController();

  constructor(
    private readonly sessionId: string,
    private readonly deps: Pick<EngineDeps, "model" | "stores" | "config" | "clock" | "logger">,
  ) {}

  /** Queues an extraction over messages that left the history window. */
  learnFrom(removed: HistoryMessage[]): Promise<void> {
    if (this.stopController.signal.aborted) return this.chain;
    const chat = removed.filter((m) => m.kind === "session" || m.kind === "complex");
    if (chat.length < MIN_CHAT_LINES) return this.chain;
    const text = transcript(chat, this.deps.config.bot.nickname, chat.length);
    this.chain = this.chain
      .then(() => this.extract(text))
      .catch((error: unknown) => {
        if (this.stopController.signal.aborted) return;
        this.deps.logger.warn(
          `[learning] session ${this.sessionId}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    return this.chain;
  }

  /** Aborts the running extraction, drops queued ones and resolves when the chain has settled. */
  stop(): Promise<void> {
    this.stopController.abort(new Error("session stopped"));
    return this.chain;
  }

  private async extract(text: string): Promise<void> {
    const { model, config, stores, clock } = this.deps;
    const signal = this.stopController.signal;
    if (signal.aborted) return;
    const response = await model.chat({
      task: "utils",
      sessionId: this.sessionId,
      messages: [
        {
          role: "system",
          content: renderPrompt("learning_extract", {}, promptOptions(config)),
        },
        { role: "user", content: text },
      ],
      signal,
    });
    const parsed = extractionSchema.safeParse(parseJsonObject(response.content) ?? {});
    if (!parsed.success) return;
    const found = parsed.data;
    for (const j of found.jargon)
      await stores.jargon.upsert({ word: j.word, meaning: j.meaning, sessionId: this.sessionId });
    for (const content of found.memories) {
      await stores.memories.add({ sessionId: this.sessionId, personName: null, content, ts: clock.now() });
    }
    for (const p of found.persons) {
      const existing = await stores.persons.find(p.name);
      await stores.persons.upsert({
        personId: existing?.personId,
        personName: p.name,
        userId: existing?.userId ?? null,
        summary: p.summary || existing?.summary || "",
        traits: unique([...(existing?.traits ?? []), ...p.traits]),
        facts: unique([...(existing?.facts ?? []), ...p.facts]),
      });
    }
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter(Boolean))];
}

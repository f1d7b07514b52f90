// Learning from chat: a small extraction step on the utils model yields jargon, memories and person
// profiles for the stores. It goes over chat messages once each: a batch of unlearned messages still in
// the window (chat.learningBatchMessages, or fewer after chat.learningIdleSeconds of quiet, so a short
// chat teaches something too), and messages trimmed out of the window that it had not seen yet. Runs in
// the background, one batch at a time per session; a failure is logged and dropped.
import { z } from "zod";
import type { HistoryMessage } from "./context/messages";
import type { LearnedItem } from "../stores/learned";
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

type ChatHistoryMessage = Extract<HistoryMessage, { kind: "session" | "complex" }>;

function isChat(m: HistoryMessage): m is ChatHistoryMessage {
  return m.kind === "session" || m.kind === "complex";
}

export class SessionLearner {
  private chain: Promise<void> = Promise.resolve();
  /** Aborts the in-flight extraction call when the session stops. */
  private readonly stopController = new AbortController();
  /** Chat message ids (still in the window) already learned from. */
  private readonly learned = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly deps: Pick<EngineDeps, "model" | "stores" | "config" | "clock" | "logger"> &
      Partial<Pick<EngineDeps, "events" | "learns">>,
  ) {}

  /** Ids learned from, for the snapshot (a restored runtime does not learn them twice). */
  learnedIds(): string[] {
    return [...this.learned];
  }

  restore(ids: readonly string[]): void {
    for (const id of ids) this.learned.add(id);
  }

  /** Unlearned chat messages of the window, oldest first. */
  unlearned(history: readonly HistoryMessage[]): ChatHistoryMessage[] {
    return history.filter((m): m is ChatHistoryMessage => isChat(m) && !this.learned.has(m.messageId));
  }

  /** Learns from the window's unlearned chat when a batch is full (`idle`: when at least a few are). */
  learnFromWindow(history: readonly HistoryMessage[], opts: { idle: boolean }): Promise<void> {
    const batch = this.deps.config.chat.learningBatchMessages;
    const fresh = this.unlearned(history);
    const enough = opts.idle ? MIN_CHAT_LINES : batch;
    if (batch === 0 || fresh.length < enough) return this.chain;
    for (const m of fresh) this.learned.add(m.messageId);
    return this.learnFrom(fresh);
  }

  /** Messages that left the history window: learned from if they were not yet; their ids are forgotten. */
  learnTrimmed(removed: readonly HistoryMessage[]): Promise<void> {
    const fresh = removed.filter((m) => isChat(m) && !this.learned.has(m.messageId));
    for (const m of removed) if (isChat(m)) this.learned.delete(m.messageId);
    return this.learnFrom(fresh);
  }

  /** Queues an extraction over these messages (fewer than a few chat lines teach nothing). */
  private learnFrom(messages: readonly HistoryMessage[]): Promise<void> {
    if (this.stopController.signal.aborted || this.deps.learns === false) return this.chain;
    const chat = messages.filter(isChat);
    if (chat.length < MIN_CHAT_LINES) return this.chain;
    const text = transcript(chat, this.deps.config.bot.nickname, chat.length);
    const sourceIds = chat.map((m) => m.messageId);
    this.chain = this.chain
      .then(() => this.extract(text, sourceIds))
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

  /** Writes what the model found; each write is recorded with its source messages (the learned feed). */
  private async extract(text: string, sourceMessageIds: string[]): Promise<void> {
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
      // Visible in the session's timeline like the other tasks' retries and failures.
      onRetry: (p) => this.deps.events?.emit(this.sessionId, "llm.retry", p),
      onError: (p) => this.deps.events?.emit(this.sessionId, "llm.error", p),
    });
    const parsed = extractionSchema.safeParse(parseJsonObject(response.content) ?? {});
    if (!parsed.success) return;
    const found = parsed.data;
    const sessionId = this.sessionId;
    const learned = (item: Pick<LearnedItem, "kind" | "targetId" | "after" | "before" | "afterVersion">) =>
      stores.learned.record({
        ...item,
        action: item.before === null ? "created" : "updated",
        sessionId,
        sourceMessageIds,
        ts: clock.now(),
      });
    for (const j of found.jargon) {
      const before = await stores.jargon.findInScope(j.word, sessionId);
      const after = await stores.jargon.upsert({ word: j.word, meaning: j.meaning, sessionId });
      await learned({ kind: "jargon", targetId: after.id, after, before, afterVersion: after.version });
    }
    for (const content of found.memories) {
      const after = await stores.memories.add({ sessionId, personName: null, content, ts: clock.now() });
      await learned({ kind: "memory", targetId: after.id, after, before: null, afterVersion: after.version });
    }
    for (const p of found.persons) {
      const existing = await stores.persons.find(p.name);
      const after = await stores.persons.upsert({
        personId: existing?.personId,
        personName: p.name,
        userId: existing?.userId ?? null,
        summary: p.summary || existing?.summary || "",
        traits: unique([...(existing?.traits ?? []), ...p.traits]),
        facts: unique([...(existing?.facts ?? []), ...p.facts]),
      });
      await learned({ kind: "person", targetId: after.personId, after, before: existing, afterVersion: after.version });
    }
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter(Boolean))];
}

// Restart recovery (engine.md 2): the runtime snapshot (schema in lib/chat/runtime-snapshot.ts) is
// written shortly after changes and at once after a turn, and parsed on restore: a snapshot that
// does not parse is logged and treated as none, never a crash.
import { runtimeSnapshotSchema, type RuntimeSnapshotState } from "../../lib/chat/runtime-snapshot";
import type { ChatMessageRecord } from "../stores/types";
import type { TimerHandle } from "./clock";
import type { HistoryMessage } from "./context/messages";
import type { EngineDeps } from "./deps";
import { describeError } from "./errors";
import type { LoopState } from "./reasoning-loop";
import type { SchedulerState } from "./trigger-scheduler";
import type { ArmedWait } from "./wait-timer";

export type { RuntimeSnapshotState };

/** Coalescing delay for snapshot writes after a message arrives. */
const PERSIST_DELAY_MS = 200;

/** The stored state of a session parsed, or null (none stored, or unreadable: logged). */
export function parseSnapshot(
  sessionId: string,
  raw: unknown,
  logger: EngineDeps["logger"],
): RuntimeSnapshotState | null {
  if (raw === undefined || raw === null) return null;
  const parsed = runtimeSnapshotSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  logger.warn(
    `[engine] session ${sessionId}: saved snapshot ignored (${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid"})`,
  );
  return null;
}

/** The runtime's parts a snapshot is made of. */
export interface SnapshotParts {
  loop: LoopState;
  scheduler: SchedulerState;
  history: HistoryMessage[];
  wait: ArmedWait | null;
}

export function composeSnapshot(parts: SnapshotParts): RuntimeSnapshotState {
  return {
    version: 1,
    agentState: parts.loop.agentState,
    history: parts.history,
    pending: parts.scheduler.pending,
    wait: parts.wait,
    previousPlannerText: parts.loop.previousPlannerText,
    latency: parts.scheduler.latency,
    cycleCounter: parts.loop.cycleCounter,
    forceContinue: parts.scheduler.forceContinue,
  };
}

/**
 * What a restore gives each part. `unseen` are stored inbound messages the snapshot may not know
 * yet: those it does not hold become pending. A wait comes back only if the state was waiting.
 */
export function restoredParts(
  state: RuntimeSnapshotState | null,
  unseen: ChatMessageRecord[],
): Omit<SnapshotParts, "loop" | "scheduler"> & {
  loop: LoopState | null;
  scheduler: SchedulerState | null;
  unseen: ChatMessageRecord[];
} {
  const known = state ? knownMessageIds(state) : new Set<string>();
  return {
    loop: state,
    scheduler: state,
    history: state?.history ?? [],
    wait: state?.agentState === "wait" ? state.wait : null,
    unseen: unseen.filter((m) => !known.has(m.messageId)),
  };
}

/** Chat message ids a saved state already holds (ingested or pending). */
export function knownMessageIds(state: RuntimeSnapshotState): Set<string> {
  const ids = new Set(state.pending.map((m) => m.messageId));
  for (const m of state.history) if (m.kind === "session" || m.kind === "complex") ids.add(m.messageId);
  return ids;
}

/** Writes one session's snapshot: coalesced after message arrivals, at once after a turn. */
export class SnapshotWriter {
  private timer: TimerHandle | null = null;
  private closed = false;

  constructor(
    private readonly sessionId: string,
    private readonly deps: Pick<EngineDeps, "stores" | "clock" | "logger">,
    private readonly build: () => RuntimeSnapshotState,
    private readonly lastActivityAt: () => number,
  ) {}

  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = this.deps.clock.setTimer(PERSIST_DELAY_MS, () => {
      this.timer = null;
      void this.now();
    });
  }

  async now(): Promise<void> {
    const { stores, clock, logger } = this.deps;
    try {
      await stores.sessions.saveSnapshot({ sessionId: this.sessionId, state: this.build(), ts: clock.now() });
      await stores.sessions.touch(this.sessionId, this.lastActivityAt() || clock.now());
    } catch (error) {
      logger.warn(`[engine] session ${this.sessionId}: snapshot not saved: ${describeError(error)}`);
    }
  }

  /** No more coalesced writes (the runtime stops; it writes its final snapshot itself). */
  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
  }
}

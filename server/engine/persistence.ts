// Restart recovery (docs/engine-rules.md#restart-recovery): the runtime snapshot (schema in lib/chat/runtime-snapshot.ts) is
// written shortly after changes and after a turn, never ahead of the ledger, and parsed on restore: a
// snapshot that does not parse is logged and treated as none, never a crash. recovery.ts reconciles
// it with the ledger and the message store into what a restored runtime starts from.
import { runtimeSnapshotSchema, type RuntimeSnapshotState } from "../../lib/chat/runtime-snapshot";
import { frozen } from "../../lib/json/frozen";
import type { ChatMessageRecord } from "../stores/messages";
import type { TimerHandle } from "../kernel/clock";
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
  /** Chat message ids learning already went over. */
  learned: string[];
  /** The session's last event seq when the parts were taken. */
  coveredSeq: number;
}

export function composeSnapshot(parts: SnapshotParts): RuntimeSnapshotState {
  const state: RuntimeSnapshotState = {
    version: 1,
    agentState: parts.loop.agentState,
    history: parts.history,
    pending: parts.scheduler.pending,
    wait: parts.wait,
    previousPlannerText: parts.loop.previousPlannerText,
    latency: parts.scheduler.latency,
    cycleCounter: parts.loop.cycleCounter,
    forceContinue: parts.scheduler.forceContinue,
    coveredSeq: parts.coveredSeq,
    messageCursor: parts.scheduler.messageCursor,
    announced: parts.scheduler.announced,
    learned: parts.learned,
  };
  // Immutable: the state is written later (once the ledger holds coveredSeq) and the parts change
  // meanwhile. The history's entries are immutable already and shared; only what changed is copied.
  return frozen(state);
}

/** What a restored runtime starts from (recovery.ts): the snapshot reconciled with ledger and store. */
export interface RecoveredSession {
  /** The saved snapshot (null: none, or unreadable). */
  state: RuntimeSnapshotState | null;
  /** Messages to ingest with the next turn, in arrival order. */
  pending: ChatMessageRecord[];
  /** Pending message ids whose message.ingested is already in the ledger. */
  announced: Set<string>;
  /** Highest cycle number used so far (snapshot or ledger). */
  cycleCounter: number;
  /** Highest message store position the restored runtime accounts for. */
  messageCursor: number;
}

/** What a restore gives each part. A wait comes back only if the state was waiting. */
export function restoredParts(recovered: RecoveredSession): Omit<SnapshotParts, "coveredSeq"> {
  const { state } = recovered;
  return {
    loop: {
      agentState: state?.agentState ?? "stop",
      cycleCounter: recovered.cycleCounter,
      previousPlannerText: state?.previousPlannerText ?? "",
    },
    scheduler: {
      pending: recovered.pending,
      latency: state?.latency ?? [],
      forceContinue: state?.forceContinue ?? false,
      messageCursor: recovered.messageCursor,
      announced: [...recovered.announced],
    },
    history: state?.history ?? [],
    wait: state?.agentState === "wait" ? state.wait : null,
    learned: state?.learned ?? [],
  };
}

/**
 * Writes one session's snapshot: coalesced after message arrivals (never mid-turn), and after a turn.
 * A state is taken when asked for and written once the ledger holds every event it covers, so a
 * snapshot never claims more than the ledger (recovery.ts relies on it). Writes run one at a time,
 * newest state wins.
 */
export class SnapshotWriter {
  private timer: TimerHandle | null = null;
  private closed = false;
  /** The newest state waiting to be written, and the writer working through them. */
  private queued: { state: RuntimeSnapshotState; ts: number } | null = null;
  private writing: Promise<void> | null = null;
  /** The session moved to another node (cluster): nothing more is written, not even a state taken already. */
  private discarded = false;

  constructor(
    private readonly sessionId: string,
    private readonly deps: Pick<EngineDeps, "stores" | "clock" | "logger" | "events">,
    private readonly build: () => RuntimeSnapshotState,
    private readonly lastActivityAt: () => number,
    private readonly turnRunning: () => boolean,
  ) {}

  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = this.deps.clock.setTimer(PERSIST_DELAY_MS, () => {
      this.timer = null;
      // Never mid-turn: a state taken then would hold the turn's messages in history with the turn
      // unfinished, and a crash would leave them without one. The turn's end saves the state anyway.
      if (!this.turnRunning()) void this.now();
    });
  }

  /** Takes the state now; resolves once it (or a newer one) is written. */
  now(): Promise<void> {
    this.queued = { state: this.build(), ts: this.deps.clock.now() };
    this.writing ??= this.drain();
    return this.writing;
  }

  private async drain(): Promise<void> {
    const { stores, clock, logger, events } = this.deps;
    try {
      for (let next = this.queued; next; next = this.queued) {
        this.queued = null;
        try {
          await events.whenDurable(this.sessionId, next.state.coveredSeq ?? 0);
        } catch (error) {
          // The session is another node's now, or shutdown gave up on a ledger that cannot write: neither
          // this state nor a later one is written here (a restart rebuilds it from the ledger).
          logger.warn(`[engine] session ${this.sessionId}: snapshot not saved: ${describeError(error)}`);
          this.queued = null;
          return;
        }
        if (this.discarded) return;
        try {
          await stores.sessions.saveSnapshot({ sessionId: this.sessionId, ...next });
          await stores.sessions.touch(this.sessionId, this.lastActivityAt() || clock.now());
        } catch (error) {
          logger.warn(`[engine] session ${this.sessionId}: snapshot not saved: ${describeError(error)}`);
        }
      }
    } finally {
      // Synchronously after the loop's last check: a now() from here on starts a new writer.
      this.writing = null;
    }
  }

  /** Nothing more is written: the session belongs to another node now. */
  discard(): void {
    this.discarded = true;
    this.close();
  }

  /** No more coalesced writes (the runtime stops; it writes its final snapshot itself). */
  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
  }
}

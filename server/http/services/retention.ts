// The retention setting (config retention): a periodic sweep on the engine's clock archives sessions
// inactive too long and deletes sessions archived too long, each action audited with actor "retention".
import { RESERVED_SESSION_IDS } from "../../../lib/api/schemas";
import type { MaisakaConfig } from "../../../lib/config/schema";
import { runAlone, type OnceGate } from "../../kernel/once-gate";
import type { Engine } from "../../composition";
import type { Clock } from "../../kernel/clock";
import type { AuditActor } from "../../stores/audit";
import type { SessionListRow, SessionPageQuery } from "../../stores/sessions";
import type { SessionLifecycle } from "./session-lifecycle";

export const RETENTION_ACTOR: AuditActor = { id: "retention", name: "retention" };

const DAY_MS = 86_400_000;
/** Rows read per page while sweeping. */
const SWEEP_PAGE = 200;

export interface SweepResult {
  archived: string[];
  deleted: string[];
}

export class RetentionSweep {
  private timer: ReturnType<Clock["setTimer"]> | null = null;
  private running: Promise<SweepResult> | null = null;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly lifecycle: SessionLifecycle,
    private readonly config: MaisakaConfig["retention"],
    /** A cluster's advisory locks: one node sweeps at a time, the others skip that pass. */
    private readonly gate: OnceGate = runAlone,
  ) {}

  get enabled(): boolean {
    return this.config.archiveAfterDays !== undefined || this.config.deleteArchivedAfterDays !== undefined;
  }

  /** Sweeps every sweepIntervalMinutes (the first sweep one interval after start); nothing when off. */
  start(): void {
    if (!this.enabled || this.stopped) return;
    this.timer = this.engine.clock.setTimer(this.config.sweepIntervalMinutes * 60_000, () => {
      void this.sweep()
        .catch((error: unknown) => this.engine.logger.warn(`[retention] sweep failed: ${String(error)}`))
        .finally(() => this.start());
    });
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running?.catch(() => undefined);
  }

  /** One pass now (a sweep under way is joined, not doubled; one under way on another node is skipped). */
  sweep(): Promise<SweepResult> {
    this.running ??= this.gate
      .tryExclusive("retention", () => this.pass())
      .then((pass) => (pass.ran ? pass.value : { archived: [], deleted: [] }))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<SweepResult> {
    const now = this.engine.clock.now();
    const result: SweepResult = { archived: [], deleted: [] };
    const { archiveAfterDays, deleteArchivedAfterDays } = this.config;
    if (deleteArchivedAfterDays !== undefined) {
      const before = now - deleteArchivedAfterDays * DAY_MS;
      for await (const row of this.rows({ archived: "only", archivedAt: { max: before } })) {
        if (this.stopped) break;
        await this.lifecycle.remove(row.id, RETENTION_ACTOR, `archived more than ${deleteArchivedAfterDays} days ago`);
        result.deleted.push(row.id);
      }
    }
    if (archiveAfterDays !== undefined) {
      const before = now - archiveAfterDays * DAY_MS;
      for await (const row of this.rows({ archived: "exclude", lastActiveAt: { max: before } })) {
        if (this.stopped) break;
        // The stored last activity lags a running runtime's: the live one decides.
        const live = this.engine.manager.status(row.id)?.lastActivityAt ?? 0;
        if (live > before) continue;
        await this.lifecycle.archive(row.id, RETENTION_ACTOR, `inactive for more than ${archiveAfterDays} days`);
        result.archived.push(row.id);
      }
    }
    return result;
  }

  /** Every matching row, page by page (keyset: rows changed behind the cursor do not shift it). */
  private async *rows(filter: Omit<SessionPageQuery, "limit" | "after">): AsyncGenerator<SessionListRow> {
    let after: SessionPageQuery["after"];
    for (;;) {
      const { rows, more } = await this.engine.stores.sessions.page({
        ...filter,
        // Reserved ids name no chat (the MCP gateway's registry scope may have a row).
        exceptIds: [...RESERVED_SESSION_IDS],
        limit: SWEEP_PAGE,
        after,
      });
      yield* rows;
      const last = rows[rows.length - 1];
      if (!more || !last) return;
      after = { value: last.createdAt, id: last.id };
    }
  }
}

// The one owner of the database's write health. Ledger and store writes report their outcomes here;
// /api/health reads it, intake refuses messages while it says the database cannot write, and each
// change of state is logged once (never once per failed write).
import type { DbState, DbStatus } from "../../lib/api/schemas";
import { DatabaseError, isPostgresUnreachable, postgresCodeOf, sqliteCodeOf } from "./errors";

export interface HealthLogger {
  info(message: string): void;
  warn(message: string): void;
}

interface DatabaseHealthOptions {
  logger?: HealthLogger;
  /**
   * Looks for evidence while the state is not ok and nothing else writes (intake is refused while the
   * disk is full, so no write would ever find out that space came back). Resolves when the database can
   * take writes again, throws the error that says why not.
   */
  probe?: () => Promise<void>;
  /** How often `probe` runs while the state is not ok (default 1 s). */
  probeIntervalMs?: number;
}

const WRITE_ERRORS = new Set([
  "SQLITE_READONLY",
  "SQLITE_IOERR",
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
  "SQLITE_CANTOPEN",
  "SQLITE_PERM",
]);

/**
 * The state a failed write puts the database in, or null when the failure says nothing about the
 * database (a constraint violation, a bug in the caller).
 */
export function stateOfError(err: unknown): Exclude<DbState, "ok"> | null {
  if (err instanceof DatabaseError) {
    if (err.kind === "locked") return "busy";
    if (err.kind === "full") return "full";
    if (err.kind === "read_only" || err.kind === "corrupt" || err.kind === "cannot_open") return "error";
    if (err.cause !== undefined) return stateOfError(err.cause);
  }
  const fsCode = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  if (fsCode === "ENOSPC" || fsCode === "EDQUOT") return "full";
  // Postgres: the server gone (down, restarting, network) or out of disk.
  if (isPostgresUnreachable(err)) return "error";
  if (postgresCodeOf(err) === "53100") return "full";
  const code = sqliteCodeOf(err);
  if (!code) return null;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (code.startsWith("SQLITE_FULL")) return "full";
  // Extended codes (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, ...) share their primary code's prefix.
  return WRITE_ERRORS.has(code.split("_").slice(0, 2).join("_")) ? "error" : null;
}

const DESCRIPTIONS: Record<Exclude<DbState, "ok">, string> = {
  busy: "another connection or process holds the write lock; writes wait",
  full: "the disk or the database is full; writes are refused until space is freed",
  error: "the database cannot be written",
};

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0].slice(0, 300);
}

/** How long a write waits for the lock before the database counts as busy. */
const BUSY_AFTER_MS = 1_000;

export class DatabaseHealth {
  private current: DbStatus = { ok: true, state: "ok" };
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;

  constructor(private readonly opts: DatabaseHealthOptions = {}) {}

  status(): DbStatus {
    return { ...this.current };
  }

  /** False while new work would only pile up: the disk is full or the database cannot be written. */
  acceptsWrites(): boolean {
    return this.current.state === "ok" || this.current.state === "busy";
  }

  /** A write committed: the database takes writes. */
  succeeded(): void {
    this.set({ ok: true, state: "ok" });
  }

  /**
   * A write found the lock taken and will retry. Our own two writers (the ledger's thread and the
   * stores) meet the lock all the time for a few milliseconds; only a wait this long says the database
   * is busy (another process holding it).
   */
  waiting(err: unknown, waitedMs: number): void {
    if (waitedMs >= BUSY_AFTER_MS) this.failed(err);
  }

  /** A write failed; failures that say nothing about the database leave the state as it is. */
  failed(err: unknown): void {
    const state = stateOfError(err);
    if (state) this.set({ ok: false, state, detail: `${DESCRIPTIONS[state]} (${firstLine(err)})` });
  }

  close(): void {
    this.closed = true;
    this.stopProbe();
  }

  private set(next: DbStatus): void {
    const previous = this.current.state;
    this.current = next;
    if (next.state === previous) return;
    if (next.state === "ok") this.opts.logger?.info(`[db] writable again (was ${previous})`);
    else this.opts.logger?.warn(`[db] state ${next.state}: ${next.detail ?? ""}`);
    if (next.state === "ok") this.stopProbe();
    else this.startProbe();
  }

  private startProbe(): void {
    const probe = this.opts.probe;
    if (!probe || this.probeTimer || this.closed) return;
    this.probeTimer = setInterval(() => {
      if (this.probing) return;
      this.probing = true;
      probe()
        .then(
          () => this.succeeded(),
          (err: unknown) => {
            // A probe that ran into the lock proves nothing about space: only a write or a free lock decides.
            if (stateOfError(err) !== "busy" || this.current.state === "busy") this.failed(err);
          },
        )
        .finally(() => {
          this.probing = false;
        });
    }, this.opts.probeIntervalMs ?? 1_000);
    this.probeTimer.unref();
  }

  private stopProbe(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }
}

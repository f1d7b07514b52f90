// Settings operators changed live (server/settings).
// Implemented with Prisma in server/db/stores/settings.ts (no in-process one: tests pass a Map).

/** Settings operators changed live, one JSON value per key (server/db; read at start, written on change). */
export interface SettingStore {
  /** undefined when never set. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ts: number): Promise<void>;
  /**
   * Writes `value` only when the stored value is still `expected` (undefined: no row yet), in one
   * statement, so two nodes changing the same key cannot both win; false when it was not written.
   */
  compareAndSet(key: string, expected: unknown, value: unknown, ts: number): Promise<boolean>;
}

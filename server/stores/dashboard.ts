// Shapes the dashboard's list pages and versioned edits share (emojis, jargon, memories, persons).
// No store of its own: the stores of those aggregates take and answer these.

/**
 * Outcome of an edit that names the version it started from: `missing` for an unknown id,
 * `conflict` (with the current record) when someone else changed it meanwhile.
 */
export type VersionedUpdate<T> =
  { status: "ok"; record: T } | { status: "conflict"; current: T } | { status: "missing" };

/** A page of a dashboard listing: `offset` rows skipped, at most `limit` returned. */
export interface PageQuery {
  limit: number;
  offset?: number;
  /** Case-insensitive substring of the text fields. */
  q?: string;
}

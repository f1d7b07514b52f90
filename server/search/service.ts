// Search across sessions (GET /api/search), on the database the server runs on: SQLite's FTS5 index in
// a file of its own (sqlite-service.ts), or tables beside the ledger on Postgres (pg-service.ts).
import { isPostgresUrl, sqlitePathFromUrl } from "../db/database-url";
import type { MonitorBus } from "../monitor/bus";
import { PgSearchService } from "./pg-service";
import { SqliteSearchService } from "./sqlite-service";
import type { SearchService } from "./service-types";

export { SearchUnavailableError, type SearchService } from "./service-types";

export interface OpenSearchOptions {
  /** The server's DATABASE_URL: `file:` (SQLite) or `postgresql://`. */
  databaseUrl: string;
  /** Delivered events poke the indexer (caughtUp() waits for them to be committed first). */
  bus?: Pick<MonitorBus, "subscribe" | "whenCommitted">;
  /** Told when an index that could not open opens after all (SQLite; Postgres waits until it can). */
  logger?: { warn(message: string): void };
}

/** Starts the search backend for this database without waiting for it (see `ready`). */
export function openSearchService(opts: OpenSearchOptions): SearchService {
  return isPostgresUrl(opts.databaseUrl)
    ? PgSearchService.open({ databaseUrl: opts.databaseUrl, bus: opts.bus })
    : SqliteSearchService.open({ ledgerFile: sqlitePathFromUrl(opts.databaseUrl), bus: opts.bus, logger: opts.logger });
}

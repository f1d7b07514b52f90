// What a search backend offers the server (the SQLite FTS5 index or the Postgres one, service.ts picks).
import type { SearchQuery, SearchResult } from "../../lib/api/search";

export interface SearchService {
  /**
   * Resolves once searches can be answered; rejects with why the index could not be opened (the
   * backend goes on trying: searches work once it opened).
   */
  readonly ready: Promise<void>;
  /** Throws SearchUnavailableError while the index is not open. */
  search(query: SearchQuery): Promise<SearchResult>;
  /** Resolves once every ledger row committed before this call is indexed. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** The index is not open (yet, or at all). */
export class SearchUnavailableError extends Error {
  override name = "SearchUnavailableError";
}

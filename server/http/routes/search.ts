// Full-text search across sessions (interface.md "Usage, search, export"); viewers may search.
import { searchQuerySchema, searchResultSchema } from "../../../lib/api/search";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const searchRoute = apiRoute({
  method: "GET",
  path: "/api/search",
  query: searchQuerySchema,
  response: searchResultSchema,
  async handle({ query }, ctx) {
    if (!ctx.search)
      throw new HttpError(503, "search is unavailable: its index could not be opened (see the server log)");
    return { body: ctx.search.search(query) };
  },
});

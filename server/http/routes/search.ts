// Full-text search across sessions (docs/interface.md#usage-search-export); viewers may search.
import { searchQuerySchema, searchResultSchema } from "../../../lib/api/search";
import { SearchUnavailableError } from "../../search/service";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const searchRoute = apiRoute({
  method: "GET",
  path: "/api/search",
  query: searchQuerySchema,
  response: searchResultSchema,
  async handle({ query }, ctx) {
    if (!ctx.search) throw new HttpError(503, "search is not served by this server");
    try {
      return { body: await ctx.search.search(query) };
    } catch (error) {
      // Opening (the first moments after start) or not openable (the server log says why).
      if (error instanceof SearchUnavailableError) throw new HttpError(503, error.message, [], { "retry-after": "1" });
      throw error;
    }
  },
});

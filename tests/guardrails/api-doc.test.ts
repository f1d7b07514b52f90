// docs/api.md lists every route the router serves, and nothing it does not: operators read it to
// find a route, so a route added without a line (or a line left after a route went) fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../server/http/routes";

/** `GET/POST /api/x` and `PATCH/DELETE /api/x/:id` in the table stand for each method on the path. */
function documentedRoutes(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const [, methods, path] of markdown.matchAll(/`([A-Z/]+) (\/api\/[^`\s]*)`/g))
    for (const method of methods.split("/")) out.add(`${method} ${path}`);
  return out;
}

describe("docs/api.md", () => {
  it("names exactly the routes the router serves", () => {
    const documented = documentedRoutes(readFileSync("docs/api.md", "utf8"));
    const served = new Set(apiRoutes.map((r) => `${r.method} ${r.path}`));
    expect(
      [...served].filter((r) => !documented.has(r)),
      "served but not in docs/api.md",
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !served.has(r)),
      "in docs/api.md but not served",
    ).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { normalizeQuery, queryTerms, scoreTool, searchTools } from "../../server/tools/tool-search";
import { spec } from "./fake-host";

function score(name: string, description: string, query: string): number {
  const normalized = normalizeQuery(query);
  return scoreTool(spec(name, description), normalized, queryTerms(normalized));
}

describe("tool_search scoring", () => {
  it("normalizes the query and splits terms on _ and -", () => {
    expect(normalizeQuery("  Get \t WEATHER_now  ")).toBe("get weather_now");
    expect(queryTerms("get weather_now-fast")).toEqual(["get", "weather", "now", "fast"]);
  });

  it("scores an exact name: 1000 + prefix 300 + contains 200 + term 25", () => {
    expect(score("weather", "", "weather")).toBe(1525);
    expect(score("Weather", "", "WEATHER")).toBe(1525);
  });

  it("scores a name prefix: 300 + 200 + 25 per term", () => {
    expect(score("weather_now", "", "weather")).toBe(525);
  });

  it("scores a name containing the query: 200 + 25", () => {
    expect(score("get_weather", "", "weather")).toBe(225);
  });

  it("scores a description containing the query: 100 + 10", () => {
    expect(score("forecast", "Shows the Weather", "weather")).toBe(110);
  });

  it("scores per term in name (+25) and description (+10)", () => {
    // "city weather": no whole-query match; "city" in description (10), "weather" in name (25) and description (10).
    expect(score("get_weather", "weather for a city", "city weather")).toBe(45);
    // Underscore terms: "get_temp" splits into "get" and "temp".
    expect(score("temp_get", "", "get_temp")).toBe(50);
  });

  it("drops zero scores and returns nothing for a blank query", () => {
    const specs = [spec("alpha", "first"), spec("beta", "second")];
    expect(searchTools(specs, "zzz", 5)).toEqual([]);
    expect(searchTools(specs, "   ", 5)).toEqual([]);
  });

  it("sorts by score descending, then by name", () => {
    const specs = [
      spec("zeta_weather", ""),
      spec("weather", ""),
      spec("alpha_weather", ""),
      spec("forecast", "weather report"),
      spec("weather_now", ""),
    ];
    expect(searchTools(specs, "weather", 10).map((s) => s.name)).toEqual([
      "weather",
      "weather_now",
      "alpha_weather",
      "zeta_weather",
      "forecast",
    ]);
  });

  it("returns at most max(1, limit)", () => {
    const specs = ["a_tool", "b_tool", "c_tool"].map((n) => spec(n, ""));
    expect(searchTools(specs, "tool", 2).map((s) => s.name)).toEqual(["a_tool", "b_tool"]);
    expect(searchTools(specs, "tool", 0).map((s) => s.name)).toEqual(["a_tool"]);
    expect(searchTools(specs, "tool", -3).map((s) => s.name)).toEqual(["a_tool"]);
  });

  it("never scores from stale text when a spec object changes", () => {
    const s = spec("alpha", "");
    expect(searchTools([s], "alpha", 5)).toHaveLength(1);
    s.name = "beta";
    expect(searchTools([s], "alpha", 5)).toHaveLength(0);
    expect(searchTools([s], "beta", 5)).toHaveLength(1);
  });

  it("ranks exactly like a plain score-then-name sort", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const words = ["get", "set", "weather", "user", "list", "file", "Weather", "now"];
    const pick = () => words[Math.floor(random() * words.length)];
    const specs = [
      spec("weather", "Weather now"),
      spec("Set", "set things"),
      spec("get_user", "get user"),
      ...Array.from({ length: 300 }, (_, i) =>
        spec(`${pick()}_${pick()}${i % 7 === 0 ? "" : `_${i}`}`, `${pick()} ${pick()} things`),
      ),
    ];
    // The spec's formula, written plainly.
    const naive = (name: string, description: string, q: string, terms: string[]) => {
      const [n, d] = [name.toLowerCase(), description.toLowerCase()];
      let score =
        (n === q ? 1000 : 0) + (n.startsWith(q) ? 300 : 0) + (n.includes(q) ? 200 : 0) + (d.includes(q) ? 100 : 0);
      for (const t of terms) score += (n.includes(t) ? 25 : 0) + (d.includes(t) ? 10 : 0);
      return score;
    };
    for (const query of ["weather", "get_user", "list-file now", "set", "WEATHER now", "user_1", "get_weather_1"]) {
      const normalized = normalizeQuery(query);
      const terms = queryTerms(normalized);
      for (const s of specs)
        expect(scoreTool(s, normalized, terms)).toBe(naive(s.name, s.description, normalized, terms));
      const reference = specs
        .map((s) => ({ s, score: naive(s.name, s.description, normalized, terms) }))
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || (a.s.name < b.s.name ? -1 : a.s.name > b.s.name ? 1 : 0))
        .map((x) => x.s.name);
      for (const limit of [1, 3, 10, 1000]) {
        expect(searchTools(specs, query, limit).map((s) => s.name)).toEqual(reference.slice(0, limit));
      }
    }
  });

  // Its speed over 10,000 specs is a benchmark figure (npm run bench: tool_search_10k), not a test.
});

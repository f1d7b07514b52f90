// tool_search_10k: the median time of one tool_search query (searchTools, the ranking the builtin tool and
// the operator views use) over a deferred pool of 10,000 tools, after the first query built its
// lower-cased text cache. Baseline: a bare scan of the same pool, one `includes` per tool over
// pre-lowered text, the least any substring search over 10,000 tools does.
import type { ToolSpec } from "../../lib/tools/schemas";
import { searchTools } from "../../server/tools/tool-search";
import type { MeasureFn } from "../measure";
import { median, percentile, timeMs } from "../support/stats";

const WORDS = [
  "weather",
  "stock",
  "price",
  "calendar",
  "note",
  "search",
  "image",
  "translate",
  "music",
  "map",
  "email",
  "todo",
  "file",
  "github",
  "issue",
  "wiki",
  "news",
  "timer",
  "alarm",
  "recipe",
  "天气",
  "股票",
  "日历",
  "翻译",
  "音乐",
  "地图",
  "新闻",
  "提醒",
];

const QUERIES = [
  "weather",
  "stock price",
  "translate_music",
  "天气 股票",
  "github-issue 42",
  "nothing-matches-this",
  "todo",
  "map news 9999",
];

function makeSpecs(count: number): ToolSpec[] {
  return Array.from({ length: count }, (_, i) => {
    const a = WORDS[i % WORDS.length];
    const b = WORDS[(i * 7 + 3) % WORDS.length];
    return {
      name: `${a}_${b}_${i}`,
      description: `Tool ${i}: ${a} ${b} helper — looks up ${b} data for a ${a} request (服务 ${i % 97})`,
      providerName: "mcp",
      providerType: "mcp",
      enabled: true,
      icons: [],
      parametersSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      metadata: { serverName: "bench" },
    };
  });
}

function samples(rounds: number, query: (q: string) => unknown): number[] {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) for (const q of QUERIES) out.push(timeMs(() => query(q)));
  return out;
}

export const run: MeasureFn = async ({ quick }) => {
  const specs = makeSpecs(10_000);
  const rounds = quick ? 50 : 250;
  const coldMs = timeMs(() => searchTools(specs, "weather", 5));
  samples(10, (q) => searchTools(specs, q, 5));
  const search = samples(rounds, (q) => searchTools(specs, q, 5));

  const texts = specs.map((s) => `${s.name}\n${s.description}`.toLowerCase());
  const scan = (q: string) => {
    const needle = q.toLowerCase();
    let hits = 0;
    for (const t of texts) if (t.includes(needle)) hits++;
    return hits;
  };
  samples(10, scan);
  const bare = samples(rounds, scan);
  return {
    value: median(search),
    baseline: median(bare),
    note:
      `median of ${search.length} queries (${QUERIES.length} kinds, multi-word and CJK included), p95 ${percentile(search, 0.95).toFixed(3)} ms, ` +
      `first query ${coldMs.toFixed(1)} ms (builds the text cache); baseline = one includes() per tool over pre-lowered text`,
  };
};

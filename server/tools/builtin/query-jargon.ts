import { failedToolResult } from "../../../lib/tools/schemas";
import { hints, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

/** At most this many exact and this many fuzzy matches per word. */
export const JARGON_MATCH_LIMIT = 5;

export const queryJargonTool: BuiltinToolEntry = {
  name: "query_jargon",
  stage: "action",
  enabledBy: (config) => config.chat.enableJargonQuery,
  buildSpec: (config) => ({
    ...describeTool(config, "query_jargon"),
    parametersSchema: {
      type: "object",
      properties: {
        words: {
          type: "array",
          description: paramText(config, "query_jargon", "words"),
          items: { type: "string" },
          minItems: 1,
        },
      },
      required: ["words"],
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async (call) => {
    const raw = call.invocation.arguments.words;
    const texts = (Array.isArray(raw) ? raw : []).filter((w): w is string => typeof w === "string");
    const words = [...new Set(texts.map((w) => w.trim()))].filter(Boolean);
    if (words.length === 0)
      return failedToolResult("query_jargon", "query_jargon 需要在 words 中提供至少一个非空词条。");

    const { jargon } = call.host.stores;
    const sessionId = sessionOf(call);
    const results = await Promise.all(
      words.map(async (word) => {
        const exact = await jargon.findExact(word, JARGON_MATCH_LIMIT, sessionId);
        const fuzzy = await jargon.findFuzzy(word, JARGON_MATCH_LIMIT, sessionId);
        const matches = [...exact, ...fuzzy].map((e) => ({ word: e.word, meaning: e.meaning }));
        return { word, found: matches.length > 0, matches };
      }),
    );
    return succeeded("query_jargon", JSON.stringify({ results }), { structuredContent: { results } });
  },
};

import { failedToolResult } from "../../../lib/tools/schemas";
import { searchTools } from "../tool-search";
import { intArg, stringArg } from "./args";
import { hints, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

export const DEFAULT_SEARCH_LIMIT = 5;

export const toolSearchTool: BuiltinToolEntry = {
  name: "tool_search",
  stage: "action",
  buildSpec: (config) => ({
    ...describeTool(config, "tool_search"),
    parametersSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: paramText(config, "tool_search", "query") },
        limit: {
          type: "integer",
          minimum: 1,
          default: DEFAULT_SEARCH_LIMIT,
          description: paramText(config, "tool_search", "limit"),
        },
      },
      required: ["query"],
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async (call) => {
    const args = call.invocation.arguments;
    const query = stringArg(args, "query");
    if (!query) return failedToolResult("tool_search", "tool_search 需要提供非空的 query 字符串参数。");
    const limit = Math.max(1, intArg(args, "limit") ?? DEFAULT_SEARCH_LIMIT);

    const sessionId = sessionOf(call);
    const [pool, discovered] = await Promise.all([
      call.host.deferredTools(sessionId),
      call.host.discoveredToolNames(sessionId),
    ]);
    const matchedToolNames = searchTools(pool, query, limit).map((spec) => spec.name);
    const newlyDiscoveredToolNames = matchedToolNames.filter((name) => !discovered.has(name));
    const structuredContent = { query, matchedToolNames, newlyDiscoveredToolNames };
    if (matchedToolNames.length === 0) {
      return succeeded(
        "tool_search",
        "没有匹配的 deferred tools（no deferred tool matched），请尝试更完整的工具名、前缀或其他关键词。",
        { structuredContent },
      );
    }

    const known = matchedToolNames.filter((name) => discovered.has(name));
    const lines = [
      `找到 ${matchedToolNames.length} 个 deferred tools，它们会在后续轮次中加入可用工具列表：`,
      ...matchedToolNames.map((name) => `- ${name}`),
      ...(newlyDiscoveredToolNames.length ? [`本次新发现：${newlyDiscoveredToolNames.join(", ")}`] : []),
      ...(known.length ? [`此前已发现：${known.join(", ")}`] : []),
    ];
    return succeeded("tool_search", lines.join("\n"), { structuredContent });
  },
};

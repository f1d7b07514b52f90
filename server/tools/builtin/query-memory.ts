import { failedToolResult } from "../../../lib/tools/schemas";
import type { MemoryEntry, MemoryQuery, MemoryQueryMode } from "../../stores/memories";
import { clamp, formatTime, intArg, parseTime, stringArg } from "./args";
import { hints, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { aggregateMemories, findEpisodes, hybridMemories, type Aggregate, type Episode } from "./query-memory-modes";
import { succeeded } from "./results";

const MODES: readonly MemoryQueryMode[] = ["search", "time", "episode", "aggregate", "hybrid"];
export const DEFAULT_MEMORY_LIMIT = 5;

function modeOf(value: unknown): MemoryQueryMode {
  return MODES.find((m) => m === value) ?? "search";
}

function itemView(m: MemoryEntry) {
  return { id: m.id, content: m.content, personName: m.personName, ts: m.ts, time: formatTime(m.ts) };
}

function episodeResult(request: MemoryQuery, episodes: Episode[]) {
  const structuredContent = {
    ...request,
    episodes: episodes.map((e) => ({ ...e, items: e.items.map(itemView) })),
    items: episodes.flatMap((e) => e.items.map(itemView)),
  };
  if (episodes.length === 0) return succeeded("query_memory", "没有找到相关记忆。", { structuredContent });
  const lines = [`找到 ${episodes.length} 段相关记忆：`];
  episodes.forEach((e, i) => {
    lines.push(`片段 ${i + 1}（${formatTime(e.start)} ~ ${formatTime(e.end)}）：`);
    for (const m of e.items) lines.push(`  - ${m.id === e.anchorId ? "★ " : ""}${describeItem(m)}`);
  });
  return succeeded("query_memory", lines.join("\n"), { structuredContent });
}

function aggregateResult(request: MemoryQuery, summary: Aggregate) {
  const structuredContent = {
    ...request,
    total: summary.total,
    truncated: summary.truncated,
    byPerson: summary.byPerson.map((p) => ({ personName: p.personName, count: p.count, latest: itemView(p.latest) })),
    byDay: summary.byDay,
    items: [],
  };
  if (summary.total === 0) return succeeded("query_memory", "没有找到相关记忆。", { structuredContent });
  const lines = [`共 ${summary.total}${summary.truncated ? "+" : ""} 条记忆。`, "按人物："];
  for (const p of summary.byPerson) {
    lines.push(`- ${p.personName ?? "（未关联人物）"}：${p.count} 条，最近一条 ${describeItem(p.latest)}`);
  }
  lines.push("按日期：", ...summary.byDay.map((d) => `- ${d.day}：${d.count} 条`));
  return succeeded("query_memory", lines.join("\n"), { structuredContent });
}

function describeItem(m: MemoryEntry): string {
  return `[${formatTime(m.ts)}]${m.personName ? `（关于 ${m.personName}）` : ""} ${m.content}`;
}

function describeItems(items: MemoryEntry[]): string[] {
  return items.map((m, i) => `${i + 1}. ${describeItem(m)}`);
}

export const queryMemoryTool: BuiltinToolEntry = {
  name: "query_memory",
  stage: "action",
  enabledBy: (config) => config.chat.enableMemoryQuery,
  buildSpec: (config) => ({
    ...describeTool(config, "query_memory"),
    parametersSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: paramText(config, "query_memory", "query") },
        mode: {
          type: "string",
          enum: [...MODES],
          default: "search",
          description: paramText(config, "query_memory", "mode"),
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 20,
          default: DEFAULT_MEMORY_LIMIT,
          description: paramText(config, "query_memory", "limit"),
        },
        person_name: { type: "string", description: paramText(config, "query_memory", "person_name") },
        time_start: { type: "string", description: paramText(config, "query_memory", "time_start") },
        time_end: { type: "string", description: paramText(config, "query_memory", "time_end") },
      },
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async (call) => {
    const args = call.invocation.arguments;
    const query = stringArg(args, "query");
    const rawStart = stringArg(args, "time_start");
    const rawEnd = stringArg(args, "time_end");
    if (!query && !rawStart && !rawEnd) {
      return failedToolResult("query_memory", "query_memory 需要提供 query，或 time_start / time_end 中的至少一个。");
    }
    const timeStart = rawStart === undefined ? undefined : parseTime(rawStart);
    const timeEnd = rawEnd === undefined ? undefined : parseTime(rawEnd, true);
    for (const [key, raw, parsed] of [
      ["time_start", rawStart, timeStart],
      ["time_end", rawEnd, timeEnd],
    ] as const) {
      if (parsed === null) {
        return failedToolResult(
          "query_memory",
          `${key} 无法解析："${raw}"。请使用 "YYYY-MM-DD HH:MM" 或 ISO 8601 格式。`,
        );
      }
    }
    if (timeStart != null && timeEnd != null && timeStart > timeEnd) {
      return failedToolResult("query_memory", "time_start 晚于 time_end，请检查时间范围。");
    }

    const personName = stringArg(args, "person_name");
    const request: MemoryQuery = {
      query,
      mode: modeOf(args.mode),
      limit: clamp(intArg(args, "limit") ?? DEFAULT_MEMORY_LIMIT, 1, 20),
      personName,
      timeStart: timeStart ?? undefined,
      timeEnd: timeEnd ?? undefined,
      sessionId: sessionOf(call),
    };
    const { memories } = call.host.stores;
    if (request.mode === "episode") return episodeResult(request, await findEpisodes(memories, request));
    if (request.mode === "aggregate") return aggregateResult(request, await aggregateMemories(memories, request));
    let items = request.mode === "hybrid" ? await hybridMemories(memories, request) : await memories.search(request);
    let note = "";
    // As in the original: a person filter that finds nothing falls back to the plain search.
    if (items.length === 0 && personName && query) {
      const unfiltered = { ...request, personName: undefined };
      items =
        request.mode === "hybrid" ? await hybridMemories(memories, unfiltered) : await memories.search(unfiltered);
      if (items.length > 0) note = `没有找到与 ${personName} 直接相关的记忆，以下是不限定人物的结果。`;
    }

    const structuredContent = {
      ...request,
      items: items.map(itemView),
    };
    if (items.length === 0) return succeeded("query_memory", "没有找到相关记忆。", { structuredContent });
    const lines = [...(note ? [note] : []), `找到 ${items.length} 条相关记忆：`, ...describeItems(items)];
    return succeeded("query_memory", lines.join("\n"), { structuredContent });
  },
};

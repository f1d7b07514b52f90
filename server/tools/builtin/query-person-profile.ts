import { failedToolResult } from "../../../lib/tools/schemas";
import type { PersonProfile } from "../../stores/persons";
import { clamp, intArg, stringArg } from "./args";
import { hints, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

export const DEFAULT_PROFILE_LIMIT = 8;

function describeProfile(p: PersonProfile, traits: string[]): string {
  const lines = [`人物：${p.personName}（person_id: ${p.personId}）`, `概要：${p.summary || "暂无"}`];
  lines.push(traits.length ? `特征：\n${traits.map((t) => `- ${t}`).join("\n")}` : "特征：暂无");
  lines.push(p.facts.length ? `已知事实：\n${p.facts.map((f) => `- ${f}`).join("\n")}` : "已知事实：暂无");
  return lines.join("\n");
}

export const queryPersonProfileTool: BuiltinToolEntry = {
  name: "query_person_profile",
  stage: "action",
  enabledBy: (config) => config.chat.enablePersonProfileQuery,
  buildSpec: (config) => ({
    ...describeTool(config, "query_person_profile"),
    parametersSchema: {
      type: "object",
      properties: {
        person_name: { type: "string", description: paramText(config, "query_person_profile", "person_name") },
        person_id: { type: "string", description: paramText(config, "query_person_profile", "person_id") },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 20,
          default: DEFAULT_PROFILE_LIMIT,
          description: paramText(config, "query_person_profile", "limit"),
        },
      },
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async (call) => {
    const args = call.invocation.arguments;
    const personId = stringArg(args, "person_id");
    const personName = stringArg(args, "person_name");
    if (!personId && !personName) {
      return failedToolResult("query_person_profile", "query_person_profile 需要提供 person_name 或 person_id。");
    }
    const { persons } = call.host.stores;
    let profile: PersonProfile | null = null;
    for (const key of [personId, personName]) {
      if (key && !profile) profile = await persons.find(key);
    }
    if (!profile) {
      return failedToolResult("query_person_profile", `没有找到 ${personName ?? personId} 的人物画像。`);
    }
    const limit = clamp(intArg(args, "limit") ?? DEFAULT_PROFILE_LIMIT, 1, 20);
    const traits = profile.traits.slice(0, limit);
    return succeeded("query_person_profile", describeProfile(profile, traits), {
      structuredContent: {
        personId: profile.personId,
        personName: profile.personName,
        userId: profile.userId,
        summary: profile.summary,
        traits,
        facts: profile.facts,
        limit,
        updatedAt: profile.updatedAt,
      },
    });
  },
};

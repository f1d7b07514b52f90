// Example legacy plugin: an old-style @Action, converted by the SDK into a tool (its parameters
// become strings; the call also receives the planner's reasoning and the original actionData). It
// answers with the legacy `[ok, message]` pair.
import { createHash } from "node:crypto";
import { Action, Plugin, type ActionArgs } from "../../server/plugins/sdk";

const SLIPS = ["大吉", "中吉", "小吉", "吉", "末吉", "平", "凶"] as const;
const ADVICE = ["宜摸鱼", "宜早睡", "宜喝水", "宜出门走走", "宜整理桌面", "忌熬夜", "忌冲动消费"] as const;

function pick<T>(list: readonly T[], digest: Buffer, byte: number): T {
  return list[digest[byte] % list.length];
}

export default class FortunePlugin extends Plugin {
  @Action({
    name: "draw_fortune",
    description: "为群友抽一支今日运势签（同一个人同一天抽到的签相同）。",
    actionParameters: { user_name: "抽签的人的名字" },
    actionRequire: ["有人想抽签或问今日运势时使用", "同一个人一天内不要重复抽"],
  })
  draw(args: ActionArgs, ctx: { sessionId: string }) {
    const name = typeof args.user_name === "string" ? args.user_name.trim() : "";
    if (!name) return [false, "需要抽签人的名字"];
    const day = new Date().toISOString().slice(0, 10);
    const digest = createHash("sha256").update(`${ctx.sessionId}|${name}|${day}`).digest();
    this.ctx.log.info(`fortune for ${name} (planner reasoning: ${args.reasoning.slice(0, 80)})`);
    return [true, `${name} 的今日运势：${pick(SLIPS, digest, 0)}，${pick(ADVICE, digest, 1)}。`];
  }
}

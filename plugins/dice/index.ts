// Example tool plugin: a dice roller with icons and annotations. Deferred (the default): the planner
// finds it through tool_search when someone asks for a roll.
import { randomInt } from "node:crypto";
import { Plugin, Tool } from "../../server/plugins/sdk";
import { roll } from "./dice";
import { diceIcons } from "./icons";

export default class DicePlugin extends Plugin {
  @Tool({
    name: "roll_dice",
    title: "掷骰子",
    description: "按骰子表达式掷骰（如 1d20、2d6+3、4d6-1），返回每颗骰子的点数和总和。给出 seed 时结果可复现。",
    parameters: [
      {
        name: "notation",
        type: "string",
        description: "骰子表达式 NdM±K：N 颗（1-100）M 面（2-1000）骰子，加减 K",
        required: true,
      },
      { name: "seed", type: "integer", description: "可选的随机种子；相同种子得到相同结果" },
    ],
    icons: diceIcons,
    annotation: {
      title: "Dice roller",
      audience: ["user", "assistant"],
      priority: 0.4,
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    },
  })
  rollDice(args: { notation: string; seed?: number }) {
    const seed = args.seed ?? randomInt(2 ** 31);
    try {
      const result = roll(args.notation, seed);
      const detail = result.rolls.length > 1 || result.modifier ? ` = ${result.total}` : "";
      const modifier = result.modifier ? ` ${result.modifier > 0 ? "+" : "-"} ${Math.abs(result.modifier)}` : "";
      return {
        content: `${result.notation}（seed ${seed}）：[${result.rolls.join(", ")}]${modifier}${detail}`,
        structuredContent: result,
      };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

// Which task the SIMULATED model is playing, recognised from the offered tools and the prompt, and
// its answer. A pure function of the request.
import { callTool, say, type SimDecision } from "./decision";
import { decidePlanner } from "./planner";
import { writeReply } from "./replyer";
import type { RequestView } from "./request-view";
import { decideTiming, TIMING_TOOLS } from "./timing-gate";
import { mainLanguageOf } from "./text";
import { answerJson, asksForJson } from "./utils";

export type SimTask = "timingGate" | "planner" | "utils" | "replyer" | "other";

interface TaskRule {
  task: SimTask;
  applies(view: RequestView): boolean;
  decide(view: RequestView): SimDecision;
}

const hasTools = (view: RequestView): boolean => view.tools.size > 0;

const TASK_RULES: TaskRule[] = [
  {
    task: "timingGate",
    applies: (v) => hasTools(v) && [...v.tools].every((t) => TIMING_TOOLS.has(t)),
    decide: decideTiming,
  },
  { task: "planner", applies: (v) => v.tools.has("reply"), decide: decidePlanner },
  { task: "utils", applies: (v) => !hasTools(v) && asksForJson(v), decide: answerJson },
  { task: "replyer", applies: (v) => !hasTools(v) && /回复|reply|respond/i.test(v.system), decide: writeReply },
  {
    task: "other",
    applies: () => true,
    decide: (v) => {
      const zh = mainLanguageOf(v.system, "zh") === "zh";
      if (v.tools.has("finish")) return callTool("finish", {}, zh ? "没有要做的事。" : "Nothing to do.");
      return say(zh ? "（模拟模型）我没有什么可补充的。" : "(simulated model) Nothing to add.");
    },
  },
];

export function decide(view: RequestView): { task: SimTask; decision: SimDecision } {
  const rule = TASK_RULES.find((r) => r.applies(view)) ?? TASK_RULES[TASK_RULES.length - 1];
  return { task: rule.task, decision: rule.decide(view) };
}

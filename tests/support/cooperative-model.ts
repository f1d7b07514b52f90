// The scripted OpenAI-compatible server (scripted-openai.ts) answering every request like a
// cooperative model, for node processes under load: the timing gate continues, the planner finishes,
// the replyer and utils write one short line. Requests are told apart by the model name of their task
// (COOPERATIVE_MODELS goes into the nodes' config). No vitest import: the benchmark uses it too.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import type { ModelTask } from "../../lib/llm/messages";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "./scripted-openai";

export const COOPERATIVE_MODELS: Record<ModelTask, string> = {
  planner: "coop-planner",
  timingGate: "coop-gate",
  replyer: "coop-replyer",
  utils: "coop-utils",
};

export interface CooperativeModel {
  llm: ScriptedOpenAi;
  /** Requests answered so far. */
  answered(): number;
}

/** `delayMs(task)`: how long each answer waits (default: at once). */
export async function startCooperativeModel(delayMs: (task: ModelTask) => number = () => 0): Promise<CooperativeModel> {
  const llm = await startScriptedOpenAi();
  let answered = 0;
  const answer = (body: ChatCompletionCreateParams): ConcreteStep => {
    llm.enqueue(answer); // one answering step always waits in the queue
    answered++;
    // The scripted server keeps every request it received: a long run would hold them all.
    llm.requests.length = 0;
    const task = (Object.keys(COOPERATIVE_MODELS) as ModelTask[]).find((t) => COOPERATIVE_MODELS[t] === body.model);
    const delay = delayMs(task ?? "utils");
    if (task === "timingGate")
      return { kind: "response", delayMs: delay, toolCalls: [{ name: "continue", arguments: {} }] };
    if (task === "planner")
      return {
        kind: "response",
        delayMs: delay,
        content: "先到这里。",
        toolCalls: [{ name: "finish", arguments: {} }],
      };
    return { kind: "response", delayMs: delay, content: task === "utils" ? "{}" : "好的。" };
  };
  llm.enqueue(answer);
  return { llm, answered: () => answered };
}

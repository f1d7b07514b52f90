import { hints, type BuiltinToolEntry } from "./entry";
import { noParameters, succeeded } from "./results";

export const noActionTool: BuiltinToolEntry = {
  name: "no_action",
  stage: "timing",
  buildSpec: () => ({
    title: "不行动",
    description: "本轮不做任何行动：对方可能还没说完，或现在不需要你发言。结束本轮并等待新消息。",
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () =>
    succeeded("no_action", "本轮不行动，等待新消息。", {
      metadata: { timingAction: "no_action", pauseExecution: true },
    }),
};

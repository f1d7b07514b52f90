import { hints, type BuiltinToolEntry } from "./entry";
import { describeTool } from "./texts";
import { noParameters, succeeded } from "./results";

export const noActionTool: BuiltinToolEntry = {
  name: "no_action",
  stage: "timing",
  buildSpec: (config) => ({
    ...describeTool(config, "no_action"),
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () =>
    succeeded("no_action", "本轮不行动，等待新消息。", {
      metadata: { timingAction: "no_action", pauseExecution: true },
    }),
};

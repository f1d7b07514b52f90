import { hints, type BuiltinToolEntry } from "./entry";
import { describeTool } from "./texts";
import { noParameters, succeeded } from "./results";

export const finishTool: BuiltinToolEntry = {
  name: "finish",
  stage: "action",
  buildSpec: (config) => ({
    ...describeTool(config, "finish"),
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () =>
    succeeded("finish", "本轮思考结束，等待新消息。", { metadata: { pauseExecution: true, finish: true } }),
};

import { hints, type BuiltinToolEntry } from "./entry";
import { noParameters, succeeded } from "./results";

export const finishTool: BuiltinToolEntry = {
  name: "finish",
  stage: "action",
  buildSpec: () => ({
    title: "结束本轮",
    description: "结束本轮思考并等待新消息。本轮需要做的事都已完成时调用。",
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () =>
    succeeded("finish", "本轮思考结束，等待新消息。", { metadata: { pauseExecution: true, finish: true } }),
};

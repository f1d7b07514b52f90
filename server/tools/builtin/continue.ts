import { hints, type BuiltinToolEntry } from "./entry";
import { noParameters, succeeded } from "./results";

export const continueTool: BuiltinToolEntry = {
  name: "continue",
  stage: "timing",
  buildSpec: () => ({
    title: "继续",
    description: "继续本轮：当你判断现在应该发言、查询信息或执行其他动作时调用，随后进入行动规划。",
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () => succeeded("continue", "继续进入本轮的思考与行动。", { metadata: { timingAction: "continue" } }),
};

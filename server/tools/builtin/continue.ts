import { hints, type BuiltinToolEntry } from "./entry";
import { describeTool } from "./texts";
import { noParameters, succeeded } from "./results";

export const continueTool: BuiltinToolEntry = {
  name: "continue",
  stage: "timing",
  buildSpec: (config) => ({
    ...describeTool(config, "continue"),
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async () => succeeded("continue", "继续进入本轮的思考与行动。", { metadata: { timingAction: "continue" } }),
};

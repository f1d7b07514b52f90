import { intArg } from "./args";
import { hints, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

export const DEFAULT_WAIT_SECONDS = 30;

export const waitTool: BuiltinToolEntry = {
  name: "wait",
  stage: "timing",
  buildSpec: (config) => ({
    ...describeTool(config, "wait"),
    parametersSchema: {
      type: "object",
      properties: {
        seconds: {
          type: "integer",
          description: paramText(config, "wait", "seconds"),
          default: DEFAULT_WAIT_SECONDS,
          minimum: 0,
        },
      },
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async ({ invocation }) => {
    const seconds = Math.max(0, intArg(invocation.arguments, "seconds") ?? DEFAULT_WAIT_SECONDS);
    return succeeded("wait", `等待 ${seconds} 秒`, {
      metadata: { timingAction: "wait", waitSeconds: seconds, pauseExecution: true },
    });
  },
};

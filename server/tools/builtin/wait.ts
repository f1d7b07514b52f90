import { intArg } from "./args";
import { hints, type BuiltinToolEntry } from "./entry";
import { succeeded } from "./results";

export const DEFAULT_WAIT_SECONDS = 30;

export const waitTool: BuiltinToolEntry = {
  name: "wait",
  stage: "timing",
  buildSpec: () => ({
    title: "等待",
    description: "暂停 N 秒后再重新判断是否行动，适合等对方把话说完。等待期间到达的新消息不会提前结束等待。",
    parametersSchema: {
      type: "object",
      properties: {
        seconds: {
          type: "integer",
          description: "等待的秒数。",
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

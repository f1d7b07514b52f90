// The environment the Host starts the Runner with: where to connect, the per-start secret and the
// plan of what to load (host/runner-build.ts). Nothing else of the Host's environment is passed
// (see host/runner-env.ts).
import { z } from "zod";
import { DEFAULT_MAX_FRAME_BYTES } from "../../../lib/plugins/protocol";

export const RUNNER_ENV = {
  address: "MAISAKA_IPC_ADDRESS",
  token: "MAISAKA_IPC_TOKEN",
  runnerId: "MAISAKA_RUNNER_ID",
  plan: "MAISAKA_RUNNER_PLAN",
  maxFrameBytes: "MAISAKA_IPC_MAX_FRAME_BYTES",
  loadTimeoutMs: "MAISAKA_PLUGIN_LOAD_TIMEOUT_MS",
} as const;

const runnerSettingsSchema = z.object({
  address: z.string().min(1),
  token: z.string().min(1),
  runnerId: z.string().min(1),
  /** The plan file; none loads no plugins. */
  plan: z.string().min(1).optional(),
  maxFrameBytes: z.coerce.number().int().positive().default(DEFAULT_MAX_FRAME_BYTES),
  loadTimeoutMs: z.coerce.number().int().positive().default(10_000),
});
export type RunnerSettings = z.infer<typeof runnerSettingsSchema>;

/** Reads the settings and removes them from `env`, so plugin code cannot read the secret. */
export function takeRunnerSettings(env: NodeJS.ProcessEnv): RunnerSettings {
  const raw = {
    address: env[RUNNER_ENV.address],
    token: env[RUNNER_ENV.token],
    runnerId: env[RUNNER_ENV.runnerId],
    plan: env[RUNNER_ENV.plan],
    maxFrameBytes: env[RUNNER_ENV.maxFrameBytes],
    loadTimeoutMs: env[RUNNER_ENV.loadTimeoutMs],
  };
  for (const key of Object.values(RUNNER_ENV)) delete env[key];
  return runnerSettingsSchema.parse(raw);
}

// The Runner's environment: a short allow-list of what Node and the OS need, plus the IPC settings.
// The operator token, model keys and everything else stay in the Host; a plugin that needs a
// variable gets it granted by config (plugins.env.<id>) and delivered to that plugin alone over IPC.
import { privateHomeEnv } from "../../sandbox/child-isolation";
import { RUNNER_ENV } from "../runner/runner-env";

const PASSED_THROUGH = [
  "PATH",
  "USERPROFILE",
  "SYSTEMROOT",
  "WINDIR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "NODE_ENV",
] as const;

/** Never handed to plugin code, whatever the config says: it controls the whole bot. */
const NEVER_GRANTED: readonly string[] = ["MAISAKA_ADMIN_TOKEN", ...Object.values(RUNNER_ENV)];

/** The Host's environment as read here (process.env or a test's map). */
export type HostEnv = Readonly<Record<string, string | undefined>>;

export interface RunnerEnvSettings {
  address: string;
  token: string;
  runnerId: string;
  plan: string;
  /** The Runner's private home and temp folder. */
  home: string;
  maxFrameBytes: number;
  loadTimeoutMs: number;
}

export function buildRunnerEnv(hostEnv: HostEnv, settings: RunnerEnvSettings): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSED_THROUGH) {
    const value = hostEnv[key];
    if (value !== undefined) env[key] = value;
  }
  env[RUNNER_ENV.address] = settings.address;
  env[RUNNER_ENV.token] = settings.token;
  env[RUNNER_ENV.runnerId] = settings.runnerId;
  Object.assign(env, privateHomeEnv(settings.home));
  env[RUNNER_ENV.plan] = settings.plan;
  env[RUNNER_ENV.maxFrameBytes] = String(settings.maxFrameBytes);
  env[RUNNER_ENV.loadTimeoutMs] = String(settings.loadTimeoutMs);
  return env;
}

/** Each plugin's granted variables that the Host has, and the grants it refused or could not fill. */
export function grantedEnv(
  hostEnv: HostEnv,
  grants: Readonly<Record<string, readonly string[]>>,
): { env: Record<string, Record<string, string>>; problems: string[] } {
  const env: Record<string, Record<string, string>> = {};
  const problems: string[] = [];
  for (const [pluginId, names] of Object.entries(grants)) {
    const vars: Record<string, string> = {};
    for (const name of names) {
      const value = hostEnv[name];
      if (NEVER_GRANTED.includes(name)) problems.push(`${name} is never granted to plugins (asked for ${pluginId})`);
      else if (value === undefined) problems.push(`${name} granted to ${pluginId} is not set`);
      else vars[name] = value;
    }
    env[pluginId] = vars;
  }
  return { env, problems };
}

// Loads maisaka.config.json (MAISAKA_CONFIG or ./maisaka.config.json when present). A bad file
// stops start-up with a message naming the field.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): { config: MaisakaConfig; path: string | null } {
  const explicit = env.MAISAKA_CONFIG;
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, "maisaka.config.json");
  if (!existsSync(path)) {
    if (explicit) throw new ConfigError(`config file not found: ${path} (from MAISAKA_CONFIG)`);
    return { config: parseConfig({}, "(defaults)"), path: null };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { config: parseConfig(raw, path), path };
}

export function parseConfig(raw: unknown, source: string): MaisakaConfig {
  const parsed = maisakaConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : "(root)";
    return `  ${field}: ${issue.message}`;
  });
  throw new ConfigError(`${source}: invalid configuration\n${problems.join("\n")}`);
}

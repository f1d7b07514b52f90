// The data folder: what the server writes for an instance lives under it (the operator token, the
// emoji library's files, the SQLite database unless DATABASE_URL names another place), so the folder
// alone is the instance and the program's folder may be read-only or replaced by an upgrade.
// MAISAKA_DATA_DIR moves it (default ./data, relative to the working directory).

/** An environment as read here (process.env, or a test's plain map). */
export type EnvMap = Readonly<Record<string, string | undefined>>;

export function dataDirFromEnv(env: EnvMap = process.env): string {
  return env.MAISAKA_DATA_DIR?.trim() || "./data";
}

// The real server as the measures start it: API and Socket.IO only, on a free loopback port, over the
// given database, with the bench config and no environment from the shell.
import { startAppServer, type AppServer } from "../../server/app-server";
import { benchConfig, benchEnv, silentLogger } from "./engine";

export const BENCH_TOKEN = "bench-operator-token-0123456789";

export function startBenchServer(databaseUrl: string): Promise<AppServer> {
  return startAppServer({
    port: 0,
    databaseUrl,
    config: benchConfig(),
    token: BENCH_TOKEN,
    dashboard: false,
    logger: silentLogger,
    env: benchEnv,
  });
}

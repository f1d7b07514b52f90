// A cluster node that runs only the OneBot transport, as its own process, so a test can kill -9 it or
// SIGSTOP it past its claims' time to live: the real OneBotService and OneBotCluster on a RedisMessenger,
// one forward URL, every session its own (no engine behind it). Prints "ready" once started.
// Env: REDIS_URL, NODE_ID, FORWARD_URL, TTL_MS.
import { RedisMessenger } from "../../server/cluster/messenger";
import { OneBotCluster } from "../../server/platforms/onebot/cluster-relay";
import { parseConfig } from "../../server/config/load";
import { OneBotService } from "../../server/platforms/onebot/service";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const nodeId = env("NODE_ID");
const redisUrl = env("REDIS_URL");
const config = parseConfig({ platforms: { onebot: { forward: [{ url: env("FORWARD_URL") }] } } }, "onebot-node");
const logger = {
  info: (m: string) => void process.stdout.write(`${m}\n`),
  warn: (m: string) => void process.stdout.write(`${m}\n`),
  error: (m: string) => void process.stdout.write(`${m}\n`),
};
const service = new OneBotService({
  config: () => config.platforms.onebot,
  logger,
  tuning: { backoff: { initialMs: 40, maxMs: 200, stableMs: 60_000 } },
});
const messenger = await RedisMessenger.connect({ url: redisUrl, nodeId, logger });
await OneBotCluster.start({
  nodeId,
  service,
  handleHere: () => Promise.resolve(),
  inbound: () => null,
  messenger,
  // Every session its own: no owner is ever lost.
  directory: {
    ownerOf: () => Promise.resolve(nodeId),
    ownsLocally: () => true,
    ownerLost: () => Promise.resolve(false),
  },
  redisUrl,
  ttlMs: Number(env("TTL_MS")),
  actionTimeoutMs: () => config.platforms.onebot.actionTimeoutMs,
  logger,
});
service.startForward();
process.stdout.write("ready\n");

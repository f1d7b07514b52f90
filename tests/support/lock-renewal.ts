// Waits for a Redis lock's owner to renew it: its time to live going up from one read to the next
// (compared with the first read only, one taken just after a renewal might never be exceeded).
import type { Redis } from "ioredis";
import { until } from "./until";

export async function lockRenewals(redis: Redis, key: string, count: number, describe?: () => string): Promise<void> {
  let last = await redis.pttl(key);
  for (let i = 0; i < count; i++) {
    await until(
      async () => {
        const now = await redis.pttl(key);
        const renewed = now > last;
        last = now;
        return renewed;
      },
      () => `a renewal of ${key} (time to live ${last} ms)${describe ? `\n${describe()}` : ""}`,
      { timeoutMs: 20_000 },
    );
  }
}

// Named claims in Redis that one node holds at a time and that lapse when it stops renewing them
// (it died, or paused past the time to live): the OneBot connection registry and the forward-URL locks.
// Claiming and renewing are one step, "take it if it is free or already mine", so a node whose claim
// lapsed while Redis restarted simply takes it back.
import type { Redis } from "ioredis";

/** Sets the claim to this node unless another holds it; 1 when this node holds it now. */
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

/** Deletes the claim only when this node holds it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisClaims {
  constructor(
    private readonly redis: Redis,
    /** This node's id: the value a held claim carries. */
    private readonly holderId: string,
    private readonly ttlMs: number,
    private readonly prefix: string,
  ) {}

  /** Takes or renews the claim; false when another node holds it. Rejects when Redis cannot answer. */
  async claim(name: string): Promise<boolean> {
    return (await this.redis.eval(CLAIM, 1, this.key(name), this.holderId, String(this.ttlMs))) === 1;
  }

  /** Takes the claim whoever holds it (the newest connection of an account is the one to use). */
  async take(name: string): Promise<void> {
    await this.redis.set(this.key(name), this.holderId, "PX", this.ttlMs);
  }

  async release(name: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(name), this.holderId);
  }

  /** The node holding the claim now, null when none does. */
  holder(name: string): Promise<string | null> {
    return this.redis.get(this.key(name));
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }
}

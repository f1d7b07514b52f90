// Token buckets keyed by a string (a session id): `capacity` requests at once, refilled at
// `refillPerSecond`. Memory stays bounded: full buckets carry no information and are dropped.
export interface TokenBucketOptions {
  capacity: number;
  refillPerSecond: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets beyond this many trigger a sweep of the full ones. */
const SWEEP_ABOVE = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(private readonly opts: TokenBucketOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Takes one token; false when the bucket is empty. retryAfterMs tells when the next one comes. */
  take(key: string): { ok: boolean; retryAfterMs: number } {
    const now = this.now();
    const bucket = this.refill(this.buckets.get(key) ?? { tokens: this.opts.capacity, at: now }, now);
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return { ok: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / this.opts.refillPerSecond) * 1000) };
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > SWEEP_ABOVE) this.sweep(now);
    return { ok: true, retryAfterMs: 0 };
  }

  private refill(bucket: Bucket, now: number): Bucket {
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    return { tokens: Math.min(this.opts.capacity, bucket.tokens + elapsed * this.opts.refillPerSecond), at: now };
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.refill(bucket, now).tokens >= this.opts.capacity) this.buckets.delete(key);
    }
  }
}

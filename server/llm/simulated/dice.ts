// The SIMULATED model's only source of variety: a PRNG seeded by the model seed and the request, so
// the same seed and the same request always give the same choice, and other requests vary.
import { createHash } from "node:crypto";

/** The seed when neither the client options nor MAISAKA_SIMULATED_SEED set one. */
export const DEFAULT_SIMULATED_SEED = "maisaka";

/** The option when given, else MAISAKA_SIMULATED_SEED, else the fixed default. */
export function resolveSeed(option?: string | number, env: NodeJS.ProcessEnv = process.env): string {
  if (option !== undefined && String(option) !== "") return String(option);
  const fromEnv = env.MAISAKA_SIMULATED_SEED?.trim();
  return fromEnv ? fromEnv : DEFAULT_SIMULATED_SEED;
}

/** Successive SHA-256 blocks of (seed, key, counter): deterministic, well spread, no state to share. */
export class Dice {
  private counter = 0;

  constructor(
    private readonly seed: string,
    private readonly key: string,
  ) {}

  /** A number in [0, 1). */
  next(): number {
    const digest = createHash("sha256").update(`${this.seed}\0${this.key}\0${this.counter++}`).digest();
    return digest.readUInt32BE(0) / 0x1_0000_0000;
  }

  pick<T>(options: readonly T[]): T {
    return options[Math.floor(this.next() * options.length)];
  }
}

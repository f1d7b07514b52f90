// Dice notation and a seeded generator: the same seed always gives the same rolls, so a disputed
// roll can be replayed.

export interface DiceRoll {
  notation: string;
  count: number;
  sides: number;
  modifier: number;
  rolls: number[];
  total: number;
  seed: number;
}

const NOTATION = /^\s*(\d{0,3})\s*[dD]\s*(\d{1,4})\s*(?:([+-])\s*(\d{1,5}))?\s*$/;

export function parseNotation(notation: string): { count: number; sides: number; modifier: number } {
  const match = NOTATION.exec(notation);
  if (!match) throw new RangeError(`"${notation}" is not dice notation such as 1d20 or 2d6+3`);
  const count = match[1] ? Number(match[1]) : 1;
  const sides = Number(match[2]);
  const modifier = match[3] ? Number(`${match[3]}${match[4]}`) : 0;
  if (count < 1 || count > 100) throw new RangeError("between 1 and 100 dice");
  if (sides < 2 || sides > 1000) throw new RangeError("between 2 and 1000 sides");
  return { count, sides, modifier };
}

/** mulberry32: tiny, fast and good enough for games. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function roll(notation: string, seed: number): DiceRoll {
  const { count, sides, modifier } = parseNotation(notation);
  const next = generator(seed);
  const rolls = Array.from({ length: count }, () => 1 + Math.floor(next() * sides));
  const total = rolls.reduce((a, b) => a + b, modifier);
  return {
    notation: `${count}d${sides}${modifier ? (modifier > 0 ? `+${modifier}` : modifier) : ""}`,
    count,
    sides,
    modifier,
    rolls,
    total,
    seed,
  };
}

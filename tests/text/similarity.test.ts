import { describe, expect, it } from "vitest";
import { isNearDuplicate, sequenceRatio } from "../../lib/text/similarity";
import corpus from "./similarity-cases.json";

// Golden values from CPython's difflib, produced by scripts/gen-similarity-cases.py.
interface Case {
  name: string;
  a: string;
  b: string;
  ratio: number;
}
const cases: Case[] = corpus.cases;

describe("sequenceRatio matches difflib.SequenceMatcher(None, a, b).ratio()", () => {
  it("has a corpus of a few hundred cases, including autojunk-sized ones", () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => [...c.b].length >= 200).length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    expect(Math.abs(sequenceRatio(c.a, c.b) - c.ratio)).toBeLessThan(1e-12);
  });

  it("gives known values", () => {
    expect(sequenceRatio("", "")).toBe(1);
    expect(sequenceRatio("abc", "")).toBe(0);
    expect(sequenceRatio("abcd", "bcde")).toBe(0.75);
    expect(sequenceRatio("abxcd", "abcd")).toBeCloseTo(8 / 9, 15);
    // find_longest_match docstring: " abcd" fully matches the tail of b, so M = 5.
    expect(sequenceRatio(" abcd", "abcd abcd")).toBeCloseTo(10 / 14, 15);
  });

  it("counts code points, not UTF-16 units", () => {
    expect(sequenceRatio("a😀", "😀")).toBeCloseTo(2 / 3, 15);
    expect(sequenceRatio("😀😀", "😀😀")).toBe(1);
  });

  it("applies autojunk to b only (popular elements dropped when len(b) >= 200)", () => {
    const a = "b" + "a".repeat(300);
    const b = "a".repeat(300) + "b";
    // Only the single "b" can anchor a match in b; without autojunk this would be ~0.9967.
    expect(sequenceRatio(a, b)).toBeCloseTo(2 / 602, 15);
    // Under 200 elements in b nothing is popular.
    expect(sequenceRatio("b" + "a".repeat(198), "a".repeat(198) + "b")).toBeCloseTo(396 / 398, 15);
  });

  // Its speed on two 2,000-char strings is a benchmark figure (npm run bench: similarity_2k).
});

describe("isNearDuplicate (docs/engine-rules.md#reasoning-dedup)", () => {
  it("needs both texts non-empty", () => {
    expect(isNearDuplicate("", "")).toBe(false);
    expect(isNearDuplicate("abc", "")).toBe(false);
    expect(isNearDuplicate("", "abc")).toBe(false);
  });

  it("is strictly above the threshold", () => {
    const prev = "abcdefghij"; // 10 chars; one substitution gives 18/20 = 0.9 exactly
    expect(sequenceRatio("abcdefghiX", prev)).toBe(0.9);
    expect(isNearDuplicate("abcdefghiX", prev)).toBe(false);
    expect(isNearDuplicate(prev, prev)).toBe(true);
    expect(isNearDuplicate("abcdefghiX", prev, 0.85)).toBe(true);
  });

  it("flags a lightly edited reasoning text", () => {
    const prev = "我需要先查一下这个用户之前说过什么，然后再决定要不要回复。";
    expect(isNearDuplicate("我需要先查一下这个用户之前说了什么，然后再决定要不要回复。", prev)).toBe(true);
    expect(isNearDuplicate("现在没必要说话，等他们聊完再看。", prev)).toBe(false);
  });
});

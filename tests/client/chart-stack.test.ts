import { describe, expect, it } from "vitest";
import { stackSeries } from "../../lib/client/chart-stack";

describe("stackSeries", () => {
  it("adds each series onto the ones before it, per x", () => {
    expect(
      stackSeries([
        [1, 2, 0],
        [3, 0, 5],
        [1, 1, 1],
      ]),
    ).toEqual([
      [1, 2, 0],
      [4, 2, 5],
      [5, 3, 6],
    ]);
  });

  it("treats a missing value as nothing on top, and keeps a column of gaps a gap", () => {
    expect(
      stackSeries([
        [null, 2],
        [3, null],
      ]),
    ).toEqual([
      [null, 2],
      [3, 2],
    ]);
    expect(stackSeries([[null], [null]])).toEqual([[null], [null]]);
  });
});

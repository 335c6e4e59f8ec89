/**
 * The root cut loop's stall rule: judged by the last three rounds' gain against the loop's progress so
 * far (not the bound's magnitude), with moves within the LP's tolerance never counted as progress.
 */
import { describe, expect, it } from "vitest";

import { stalled } from "../src/root-cuts.js";

describe("root cut loop stall rule", () => {
  it("needs three rounds after the window's start before it can stall", () => {
    expect(stalled([10, 10, 10])).toBe(false);
    expect(stalled([10, 10, 10, 10])).toBe(true);
    expect(stalled([10, 10, 10, 10, 10], 2)).toBe(false);
  });

  it("reads a small gain on a large bound as progress when the loop's progress is of its size", () => {
    // a bound near 115,000 moved by 400 over the loop, then by 1 over the last three rounds: progress
    expect(stalled([114740, 115130, 115140, 115140, 115140, 115141])).toBe(false);
    // the same window after a progress of 40,000 is flat
    expect(stalled([75141, 115130, 115140, 115140, 115140, 115141])).toBe(true);
  });

  it("sums the window: one flat round between gains is not a stall", () => {
    expect(stalled([0, 5, 8, 8, 9])).toBe(false);
    expect(stalled([0, 5, 8, 8, 8, 8])).toBe(true);
  });

  it("counts moves within the LP's tolerance as none, whatever the progress", () => {
    expect(stalled([1e6, 1e6 + 1e-4, 1e6 + 2e-4, 1e6 + 3e-4])).toBe(true);
  });
});

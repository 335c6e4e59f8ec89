import { describe, expect, it } from "vitest";
import { LuFactor, MAX_UPDATES } from "../src/lu.js";
import { Rng } from "../src/rng.js";

/** A random sparse m×m basis with a heavy diagonal, column-wise. */
function randomBasis(m: number, density: number, rng: Rng) {
  const start = new Int32Array(m + 1);
  const index: number[] = [];
  const value: number[] = [];
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < m; i++) {
      if (i === j) {
        index.push(i);
        value.push(4 + rng.next());
      } else if (rng.next() < density) {
        index.push(i);
        value.push(rng.next() * 2 - 1);
      }
    }
    start[j + 1] = index.length;
  }
  return { start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/**
 * Factorises a random basis, then updates it MAX_UPDATES + 5 times with random entering columns of the
 * given density; returns `refactorPays(extraCost)` after each update, and the update after which the
 * factor held MAX_UPDATES − 1 row etas (the cap; 0 when never).
 */
function answersThroughUpdates(m: number, columnDensity: number, extraCost: number, seed: number): { answers: boolean[]; cap: number } {
  const rng = new Rng(seed);
  const { start, index, value } = randomBasis(m, 0.02, rng);
  const lu = new LuFactor(m);
  lu.factorize(start, index, value);
  const answers: boolean[] = [];
  let cap = 0;
  for (let u = 0; u < MAX_UPDATES + 5; u++) {
    const alpha = new Float64Array(m);
    for (let i = 0; i < m; i++) if (rng.next() < columnDensity) alpha[i] = rng.next() * 2 - 1;
    const r = rng.int(m);
    alpha[r] = 5;
    lu.ftran(alpha, true);
    if (!lu.update(alpha, r)) break;
    answers.push(lu.refactorPays(extraCost));
    if (cap === 0 && lu.updateCount + 1 >= MAX_UPDATES) cap = answers.length;
  }
  return { answers, cap };
}

describe("jaos LU refactorisation rule", () => {
  it("waits at least ten updates, refactorises by MAX_UPDATES − 1 row etas at the latest, and once due stays due", () => {
    for (const [density, seed] of [
      [0.02, 1],
      [0.2, 2],
      [0.6, 3],
    ] as const) {
      const { answers, cap } = answersThroughUpdates(80, density, 0, seed);
      expect(answers.length).toBe(MAX_UPDATES + 5);
      const first = answers.indexOf(true) + 1;
      expect(first).toBeGreaterThanOrEqual(10);
      if (cap > 0) expect(first).toBeLessThanOrEqual(cap);
      expect(answers.slice(first - 1).every((a) => a)).toBe(true);
    }
  });

  it("refactorises sooner when the update file grows faster, and later when a factorisation costs more", () => {
    const firstDue = (density: number, extraCost: number) => answersThroughUpdates(80, density, extraCost, 5).answers.indexOf(true) + 1;
    expect(firstDue(0.6, 0)).toBeLessThan(firstDue(0.02, 0));
    expect(firstDue(0.6, 1e6)).toBeGreaterThan(firstDue(0.6, 0));
    // a factorisation too dear for the rule: only the cap refactorises
    const { answers, cap } = answersThroughUpdates(80, 0.6, 1e12, 5);
    expect(cap).toBeGreaterThan(0);
    expect(answers.indexOf(true) + 1).toBe(cap);
  });
});

import fc from "fast-check";
import type { ProblemInput } from "../../../functions/core/problem/schema.js";
import { type Base, type Column, INFEASIBLE, int, type Row, type Term, terms } from "./shared.js";

// ---------------------------------------------------------------- near-integral

export interface NearIntegralRecipe {
  blocks: {
    exponent: number;
    residue: number;
    below: number;
    above: number;
    cost: number;
    slackCost: number;
    room: number;
    mirror: boolean;
    halfCap: boolean;
  }[];
}

/**
 * Independent blocks: integer x ∈ [−below, above], continuous z ∈ [0, Z], A = 10^e (e = 7…9), 1 ≤ r ≤ A·1e-7.
 *  - plain: A·x + z ≥ r, min c·x + e·z (c, e ≥ 1). x ≤ −1 needs z ≥ A + r > Z, x ≥ 2 costs more than x = 1;
 *    so x = 0 with z = r (if r ≤ Z), or x = 1 with z = 0 (if above ≥ 1 and no `halfCap`, the row 2x ≤ 1
 *    that leaves x ≤ 0 to integers and x ≤ ½ to the relaxation). The LP relaxation: x = r/A ≤ 1e-7.
 *  - mirror: A·x − z ≤ −r, min −c·x + e·z: x = 0 with z = r, or x = −1 with z = 0 (if below ≥ 1); x ≥ 1
 *    needs z ≥ A + r, x ≤ −2 costs more. The LP relaxation: x = −r/A.
 * Each row's side is r (≤ 100), so a point rounded from the relaxation breaks it by r, far beyond any
 * tolerance; a side of A·k + r would hide that within a tolerance relative to the side (the indicator family
 * has those). Infeasible blocks (no option) are short by r − Z ≥ 1.
 */
export function nearIntegral(r: NearIntegralRecipe): Base {
  const variables: Column[] = [];
  const constraints: Row[] = [];
  const objective: Term[] = [];
  let value = 0;
  const point: Record<string, number> = {};
  let feasible = true;
  r.blocks.forEach((b, i) => {
    const A = 10 ** b.exponent;
    const residue = 1 + ((b.residue - 1) % 10 ** (b.exponent - 7));
    const sign = b.mirror ? -1 : 1;
    variables.push({ name: `x${i}`, type: "integer", lb: -b.below, ub: b.above }, { name: `z${i}`, ub: b.room });
    objective.push(
      ...terms([
        [`x${i}`, sign * b.cost],
        [`z${i}`, b.slackCost],
      ]),
    );
    const near = terms([
      [`x${i}`, A],
      [`z${i}`, sign],
    ]);
    constraints.push(b.mirror ? { name: `near${i}`, terms: near, ub: -residue } : { name: `near${i}`, terms: near, lb: residue });
    if (b.halfCap && !b.mirror) constraints.push({ name: `cap${i}`, terms: terms([[`x${i}`, 2]]), ub: 1 });
    const options: { x: number; z: number }[] = [];
    if (residue <= b.room) options.push({ x: 0, z: residue });
    if (b.mirror ? b.below >= 1 : b.above >= 1 && !b.halfCap) options.push({ x: sign, z: 0 });
    const cost = (o: { x: number; z: number }) => sign * b.cost * o.x + b.slackCost * o.z;
    const chosen = options.sort((p, q) => cost(p) - cost(q))[0];
    if (!chosen) feasible = false;
    else {
      value += cost(chosen);
      point[`x${i}`] = chosen.x;
      point[`z${i}`] = chosen.z;
    }
  });
  const problem: ProblemInput = { name: "near-integral", variables, objective: { terms: objective }, constraints };
  if (!feasible) return { ...INFEASIBLE, problem };
  return { expected: "optimal", optimum: value, witness: point, problem };
}

export const nearIntegralRecipe = fc.record({
  blocks: fc.array(
    fc.record({
      exponent: int(7, 9),
      residue: int(1, 100),
      below: int(0, 2),
      above: int(0, 2),
      cost: int(1, 9),
      slackCost: int(1, 9),
      room: int(0, 100),
      mirror: fc.boolean(),
      halfCap: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

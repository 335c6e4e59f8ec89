import type { Problem } from "../problem/schema.js";

/** Integrality tolerance: solvers accept an integer variable this far from an integer. */
export const INTEGRALITY_TOLERANCE = 1e-6;

/**
 * The values of integer and binary variables as the integers they stand for: solvers report e.g.
 * 0.9999999999999992 for a binary at 1, within their integrality tolerance. A value farther from an
 * integer than the tolerance is left as the solver gave it (it is then the solver's to explain).
 */
export function snapIntegerValues(problem: Problem, solution: Record<string, number> | null): Record<string, number> | null {
  if (!solution) return solution;
  const integer = new Set(problem.variables.filter((v) => v.type !== "continuous").map((v) => v.name));
  if (integer.size === 0) return solution;
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(solution)) {
    const nearest = Math.round(value);
    out[name] = integer.has(name) && Math.abs(value - nearest) <= INTEGRALITY_TOLERANCE ? nearest + 0 : value;
  }
  return out;
}

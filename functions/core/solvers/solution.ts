import type { Problem } from "../problem/schema.js";
import { INTEGRALITY_TOLERANCE } from "./verification-schema.js";

export { INTEGRALITY_TOLERANCE };

/**
 * The values of integer and binary variables as the integers they stand for: solvers report e.g.
 * 0.9999999999999992 for a binary at 1, within their integrality tolerance. A value farther from an
 * integer than the tolerance is left as the solver gave it.
 *
 * This rounds without re-checking: a result is never reported through it. The verification gate
 * (verification.ts) rounds a result's integers only where the rounded point still passes, since a
 * point may hold only because an integer sits within the tolerance of the one it stands for (a big-M
 * trickle). It stays for callers that only need the integers a point stands for.
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

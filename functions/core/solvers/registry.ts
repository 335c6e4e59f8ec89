import type { ProblemClass } from "../problem/schema.js";
import { SOLVER_NAMES, type SolverName, type UnsupportedReason } from "./types.js";

/**
 * What each solver can express, independent of the machine. Whether it is installed is a separate
 * fact (the inventory a worker reports); both decide a comparison row's `unsupported_reason`.
 */
export interface SolverCapabilities {
  integers: boolean;
  /** Quadratic objective terms: none, only without integers (convex QP), or with integers too. */
  quadratic: "none" | "continuous_only" | "all";
}

export interface SolverDescriptor {
  name: SolverName;
  title: string;
  capabilities: SolverCapabilities;
  /** Higher is preferred by `auto` for that class. */
  autoPreference: Partial<Record<ProblemClass, number>>;
}

export const SOLVERS: Record<SolverName, SolverDescriptor> = {
  scip: {
    name: "scip",
    title: "SCIP (pyscipopt)",
    capabilities: { integers: true, quadratic: "all" },
    autoPreference: { LP: 2, MILP: 3, QP: 2, MIQP: 3 },
  },
  highs: {
    name: "highs",
    title: "HiGHS",
    capabilities: { integers: true, quadratic: "continuous_only" },
    autoPreference: { LP: 4, MILP: 4, QP: 3 },
  },
  cbc: {
    name: "cbc",
    title: "COIN-OR CBC",
    capabilities: { integers: true, quadratic: "none" },
    autoPreference: { LP: 1, MILP: 2 },
  },
  glpk: {
    name: "glpk",
    title: "GLPK (glpsol)",
    capabilities: { integers: true, quadratic: "none" },
    autoPreference: { LP: 0, MILP: 0 },
  },
  jaos: {
    name: "jaos",
    title: "jaos (Incumbent's TypeScript engine)",
    capabilities: { integers: true, quadratic: "none" },
    autoPreference: { LP: 1, MILP: 1 },
  },
};

export function isSolverName(name: string): name is SolverName {
  return (SOLVER_NAMES as readonly string[]).includes(name);
}

/** Why `solver` cannot run a problem of class `cls` (null = it can express it). */
export function expressibilityGap(solver: SolverName, cls: ProblemClass): UnsupportedReason | null {
  const caps = SOLVERS[solver].capabilities;
  const integers = cls === "MILP" || cls === "MIQP";
  const quadratic = cls === "QP" || cls === "MIQP";
  if (quadratic) {
    if (caps.quadratic === "none") return "quadratic_terms";
    if (caps.quadratic === "continuous_only" && integers) return "quadratic_terms";
  }
  if (integers && !caps.integers) return "integer_variables";
  return null;
}

/**
 * The reason a named solver gets an `unsupported` row, or null when it can run: unknown names are
 * `not_registered`, solvers missing on the fleet `not_available`, then what the model needs.
 */
export function unsupportedReason(name: string, cls: ProblemClass, available: ReadonlySet<string>): UnsupportedReason | null {
  if (!isSolverName(name)) return "not_registered";
  if (!available.has(name)) return "not_available";
  return expressibilityGap(name, cls);
}

/** `auto`: the most preferred available solver that can express the class; null when none can. */
export function pickAuto(cls: ProblemClass, available: ReadonlySet<string>): SolverName | null {
  let best: SolverName | null = null;
  let bestScore = -Infinity;
  for (const name of SOLVER_NAMES) {
    const score = SOLVERS[name].autoPreference[cls];
    if (score === undefined || !available.has(name) || expressibilityGap(name, cls) !== null) continue;
    if (score > bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

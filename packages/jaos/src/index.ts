/**
 * jaos: an LP/MILP engine in pure TypeScript (README.md). `solveJaos` takes a problem by names and
 * returns a checked result plus engine statistics; the rest is the engine's building blocks for
 * callers that work on its internal model: checking certificates, the LP engine itself, presolve and
 * cut separators (the service's certificate checks, its tests and benchmarks).
 */
export type { JaosConstraint, JaosProblem, JaosResult, JaosStats, JaosStatus, JaosTerm, JaosVariable } from "./problem.js";
export { JAOS_VERSION, solveJaos, type JaosOptions } from "./solve.js";

export { maxViolation, modelFromProblem, objectiveValue, rowActivities, type LpModel, type ModelMapping } from "./model.js";
export { checkFarkas, checkUnboundedRay } from "./certificates.js";
export { DEFAULT_INTEGRALITY_TOLERANCE, IntegralityRule, validTolerance } from "./integrality.js";
export { LpEngine, type LpResult, type LpSolveOptions, type LpStatus } from "./lp.js";
export { noPresolve, presolve, type PresolveStats, type Presolved } from "./presolve.js";
export { AT_LOWER, AT_UPPER, BASIC } from "./simplex-state.js";
export { type Cut, withRows } from "./cuts.js";
export { MirSeparator } from "./mir.js";
export { PathSeparator } from "./path-cuts.js";
export type { MipStats } from "./mip.js";

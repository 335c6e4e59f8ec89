/**
 * One gap definition for every solver (each solver's own differs: SCIP divides by the smaller of the
 * two bounds, CBC and glpsol by the incumbent): |incumbent − bound| / max(|incumbent|, 1e-10), as
 * HiGHS and CPLEX do. 0 when the two agree to 1e-9 relative (a proved optimum); null without both.
 */
export function relativeGap(objective: number | null, bound: number | null): number | null {
  if (objective === null || bound === null || !Number.isFinite(objective) || !Number.isFinite(bound)) return null;
  const diff = Math.abs(objective - bound);
  if (diff <= 1e-9 * Math.max(1, Math.abs(objective))) return 0;
  return diff / Math.max(Math.abs(objective), 1e-10);
}

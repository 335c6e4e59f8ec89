/**
 * An explanation's time (docs/decisions.md, "Why infeasible"): the search for the subset (a solver's
 * IIS or the deletion filter) gets one more time limit from the infeasible verdict, and the checker's
 * verification another from the search's end. The verification's re-solves number about as many as
 * the filter's (one per member of an irreducible subset), so a share of one limit would leave most
 * filtered answers unchecked.
 */
export function searchDeadlineMs(timeLimitSeconds: number, startedMs: number): number {
  return startedMs + timeLimitSeconds * 1000;
}

export const verifyDeadlineMs = searchDeadlineMs;

/** Seconds a solver's own IIS search may take (the Python runner's HiGHS and SCIP): one time limit. */
export const explanationSearchSeconds = (timeLimitSeconds: number): number => timeLimitSeconds;

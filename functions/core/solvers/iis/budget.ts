/**
 * An explanation runs within one more time limit, counted from the infeasible verdict: the search for
 * the subset (a solver's IIS or the deletion filter) until EXPLAIN_SEARCH_SHARE of it, the
 * verification's re-solves in the rest (docs/decisions.md, "Why infeasible").
 */
export const EXPLAIN_SEARCH_SHARE = 0.8;

export interface ExplanationDeadlines {
  searchMs: number;
  verifyMs: number;
}

export function explanationDeadlines(timeLimitSeconds: number, startedMs: number): ExplanationDeadlines {
  const budgetMs = timeLimitSeconds * 1000;
  return { searchMs: startedMs + EXPLAIN_SEARCH_SHARE * budgetMs, verifyMs: startedMs + budgetMs };
}

/** Seconds a solver's own IIS search may take (the Python runner's HiGHS and SCIP). */
export const explanationSearchSeconds = (timeLimitSeconds: number): number => EXPLAIN_SEARCH_SHARE * timeLimitSeconds;

/**
 * Problem files for the client and CLI tests, as a user would have them on disk: each solves in
 * milliseconds with every solver and has one known verdict.
 */

/** A 0-1 knapsack, minimising: -3x - 4y - 5z with 2x + 3y + 4z ≤ 7. Optimum -9 (y = z = 1). */
export const KNAPSACK_MPS = `NAME          CLIENTMIP
ROWS
 N  obj
 L  cap
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    x         obj       -3   cap       2
    y         obj       -4   cap       3
    z         obj       -5   cap       4
    MARKER                 'MARKER'                 'INTEND'
RHS
    rhs       cap       7
BOUNDS
 UP bnd       x         1
 UP bnd       y         1
 UP bnd       z         1
ENDATA
`;
export const KNAPSACK_OPTIMUM = -9;

/** x ≥ 5 and x ≤ 3: infeasible. */
export const INFEASIBLE_LP = `\\ x cannot be both at least 5 and at most 3
Minimize
 obj: x
Subject To
 low: x >= 5
 high: x <= 3
End
`;

/** Minimise -x with x - y ≤ 1 and both non-negative: unbounded (y grows, x follows). */
export const UNBOUNDED_LP = `Minimize
 obj: - x
Subject To
 c: x - y <= 1
End
`;

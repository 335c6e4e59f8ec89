import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Problem } from "../../../../../../functions/core/problem/schema.js";
import {
  checkInfeasibility,
  deletionFilter,
  type FeasibilityOracle,
  type FeasibilityVerdict,
  infeasibilityOf,
  jaosOracle,
  membersOf,
  subproblem,
  verdictOf,
  verifyInfeasibility,
} from "../../../../../../functions/core/solvers/iis/index.js";
import { solveJaos } from "../../../../../../functions/core/solvers/jaos-engine.js";
import { problem } from "../../../../../support/jaos.js";

/**
 * Demand x + y ≥ 5 against capacities x ≤ 1 and y ≤ 1 (bounds) and a cap row z ≤ 2: one conflict,
 * {demand, x ≤ 1, y ≤ 1}. The rest (z's rows, a balance row, every lower bound) takes no part.
 */
const LP = problem({
  sense: "maximize",
  variables: [
    { name: "x", ub: 1 },
    { name: "y", ub: 1 },
    { name: "z", lb: -3, ub: 8 },
  ],
  objective: { constant: 0, terms: [{ var: "z", coef: 1 }] },
  constraints: [
    {
      name: "balance",
      ub: 10,
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: -1 },
      ],
    },
    {
      name: "demand",
      lb: 5,
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
    },
    { name: "cap", ub: 2, terms: [{ var: "z", coef: 1 }] },
    {
      name: "mix",
      lb: -20,
      ub: 20,
      terms: [
        { var: "x", coef: 1 },
        { var: "z", coef: 1 },
      ],
    },
  ],
});

/**
 * 2a + 2b = 3 has no integer solution, though its LP relaxation has many: an IIS of the MILP that keeps
 * integrality is this row alone; the other rows are satisfiable together (a = 1, b = 0, c = 2).
 */
const MILP = problem({
  variables: [
    { name: "a", type: "integer", lb: -10, ub: 10 },
    { name: "b", type: "integer", lb: -10, ub: 10 },
    { name: "c", type: "binary" },
  ],
  objective: { constant: 0, terms: [{ var: "a", coef: 1 }] },
  constraints: [
    {
      name: "parity",
      lb: 3,
      ub: 3,
      terms: [
        { var: "a", coef: 2 },
        { var: "b", coef: 2 },
      ],
    },
    {
      name: "link",
      ub: 4,
      terms: [
        { var: "a", coef: 1 },
        { var: "c", coef: 3 },
      ],
    },
    { name: "floor", lb: -5, terms: [{ var: "b", coef: 1 }] },
  ],
});

const far = () => Date.now() + 60_000;

describe("deletion filter", () => {
  it("finds the one conflict of an LP: the demand row and the two upper bounds it cannot meet", async () => {
    expect(solveJaos(LP, { timeLimitSeconds: 10, gapTolerance: 0 }).solver_status).toBe("infeasible");
    const found = await deletionFilter(LP, jaosOracle, { deadlineMs: far() });
    expect(found.irreducible).toBe(true);
    const answer = infeasibilityOf(LP, found.members, { method: "deletion_filter", irreducible: true, verified: null });
    expect(answer.constraints).toEqual([{ name: "demand" }]);
    expect(answer.variable_bounds).toEqual([
      { variable: "x", bound: "upper" },
      { variable: "y", bound: "upper" },
    ]);
  });

  it("drops members in blocks: a conflict of three among 100 members costs far fewer than 100 solves", async () => {
    const padded = problem({
      ...LP,
      variables: [...LP.variables, ...Array.from({ length: 30 }, (_, k) => ({ name: `w${k}`, lb: 0, ub: 5 }))],
      constraints: [
        ...LP.constraints,
        ...Array.from({ length: 30 }, (_, k) => ({
          name: `spare${k}`,
          ub: 12,
          terms: [
            { var: `w${k}`, coef: 1 },
            { var: "z", coef: 1 },
          ],
        })),
      ],
    });
    const found = await deletionFilter(padded, jaosOracle, { deadlineMs: far() });
    expect(found.members).toHaveLength(3);
    expect(found.oracleCalls).toBeLessThan(40);
  });

  it("keeps integrality: a MILP's subset is infeasible as a MILP (the parity row alone), though its LP relaxation is feasible", async () => {
    const found = await deletionFilter(MILP, jaosOracle, { deadlineMs: far() });
    const answer = infeasibilityOf(MILP, found.members, { method: "deletion_filter", irreducible: found.irreducible, verified: null });
    expect(answer).toMatchObject({ constraints: [{ name: "parity" }], variable_bounds: [], irreducible: true });
    const relaxed = subproblem(MILP, found.members);
    relaxed.variables = relaxed.variables.map((v) => ({ ...v, type: "continuous" }));
    expect(solveJaos(relaxed, { timeLimitSeconds: 10, gapTolerance: 0 }).solver_status).toBe("optimal");
    expect(await verifyInfeasibility(MILP, answer, { oracle: jaosOracle, deadlineMs: far() })).toBe(true);
  });

  it("stops at the deadline with irreducible false and a subset that is still infeasible", async () => {
    let clock = 0;
    const ticking: FeasibilityOracle = async (sub, seconds) => {
      clock += 1000;
      return jaosOracle(sub, seconds);
    };
    const found = await deletionFilter(LP, ticking, { deadlineMs: 2500, now: () => clock });
    expect(found.oracleCalls).toBe(3);
    expect(found.irreducible).toBe(false);
    expect(found.members.length).toBeGreaterThan(3);
    expect(await jaosOracle(subproblem(LP, found.members), 10)).toBe("infeasible");
  });

  it("takes members given as needed without a solve and filters only the rest (SCIP's constraints, its bounds)", async () => {
    const demand = { kind: "constraint" as const, row: 1 };
    const start = [
      demand,
      { kind: "constraint" as const, row: 2 },
      ...membersOf(LP, {
        constraints: [],
        variable_bounds: [
          { variable: "x", bound: "both" },
          { variable: "y", bound: "both" },
        ],
      }),
    ];
    const seen: string[][] = [];
    const watching: FeasibilityOracle = async (sub, seconds) => {
      seen.push(sub.constraints.map((c) => c.name));
      return jaosOracle(sub, seconds);
    };
    const found = await deletionFilter(LP, watching, { start, keep: [demand], deadlineMs: far() });
    expect(found.irreducible).toBe(true);
    expect(infeasibilityOf(LP, found.members, { method: "solver_iis", irreducible: true, verified: null })).toMatchObject({
      constraints: [{ name: "demand" }],
      variable_bounds: [
        { variable: "x", bound: "upper" },
        { variable: "y", bound: "upper" },
      ],
    });
    expect(seen.every((rows) => rows.includes("demand"))).toBe(true);
  });

  it("keeps a member whose removal the oracle cannot decide, and then does not claim irreducibility", async () => {
    const undecided: FeasibilityOracle = async (sub, seconds) => (sub.constraints.some((c) => c.name === "balance") ? jaosOracle(sub, seconds) : "unknown");
    const found = await deletionFilter(LP, undecided, { deadlineMs: far() });
    expect(found.irreducible).toBe(false);
    expect(found.members).toContainEqual({ kind: "constraint", row: 0 });
    expect(await jaosOracle(subproblem(LP, found.members), 10)).toBe("infeasible");
  });
});

describe("deletion filter: the start is checked, never trusted (issue 24)", () => {
  /** min 100x + y, y − 1e7·x ≤ 0, y ≥ 5, x binary: feasible (x = 1, y = 5), yet jaos once called it infeasible. */
  const BIG_M = problem({
    objective: {
      constant: 0,
      terms: [
        { var: "x", coef: 100 },
        { var: "y", coef: 1 },
      ],
    },
    variables: [
      { name: "x", type: "binary" },
      { name: "y", lb: 5 },
    ],
    constraints: [
      {
        name: "link",
        ub: 0,
        terms: [
          { var: "y", coef: 1 },
          { var: "x", coef: -1e7 },
        ],
      },
    ],
  });

  it("re-solves the start first: a feasible model ends the filter at once, not irreducible, with start: feasible", async () => {
    // A re-solve that finds the model's optimum (x = 1, y = 5), which satisfies every subset of it.
    const oracle: FeasibilityOracle = async (sub) => verdictOf(sub, { solver_status: "optimal", solution: { x: 1, y: 5 } });
    const found = await deletionFilter(BIG_M, oracle, { deadlineMs: far() });
    expect(found).toMatchObject({ start: "feasible", irreducible: false, oracleCalls: 1 });
    // The old filter, trusting its start, kept every member and called the feasible model irreducible.
    expect(found.members).toHaveLength(4);
  });

  it("answers an empty start feasible without a solve (integrality alone always holds)", async () => {
    const never: FeasibilityOracle = async () => {
      throw new Error("no re-solve expected");
    };
    expect(await deletionFilter(MILP, never, { start: [], deadlineMs: far() })).toMatchObject({
      members: [],
      start: "feasible",
      irreducible: false,
      oracleCalls: 0,
    });
  });

  it("claims no irreducibility over a start no re-solve proved infeasible, even when every removal turns it feasible", async () => {
    const members = membersOf(LP, {
      constraints: [{ name: "demand" }],
      variable_bounds: [
        { variable: "x", bound: "upper" },
        { variable: "y", bound: "upper" },
      ],
    });
    const start = subproblem(LP, members);
    const undecided: FeasibilityOracle = async (sub) =>
      sub.constraints.length === start.constraints.length && JSON.stringify(sub.variables) === JSON.stringify(start.variables) ? "unknown" : "feasible";
    const found = await deletionFilter(LP, undecided, { start: members, deadlineMs: far() });
    expect(found).toMatchObject({ start: "unknown", irreducible: false });
    expect(found.members).toHaveLength(3);
  });

  it("does not take a big-M trickle for a point: y = 3e-7 is integral within 1e-6 but no integer y satisfies the row", () => {
    const sub = problem({
      ...BIG_M,
      variables: [
        { name: "x", type: "integer", lb: 0, ub: 0.5 },
        { name: "y", lb: 5 },
      ],
    });
    expect(verdictOf(sub, { solver_status: "optimal", solution: { x: 3e-7, y: 3 } })).toBe("unknown");
    expect(verdictOf(BIG_M, { solver_status: "optimal", solution: { x: 0.9999999, y: 5 } })).toBe("feasible");
  });

  /**
   * Feasibility as an abstract monotone rule over the rows of a model (every row a member, no bounds): a
   * set is infeasible when it holds one of a few generated conflicts, and the oracle may also answer
   * "unknown" on generated sets. Whatever the conflicts, the filter's answer must hold: a feasible start
   * is said so; an irreducible answer is infeasible and each member removed leaves it feasible; an answer
   * that is not irreducible, when the start was infeasible, is still infeasible.
   */
  it("answers soundly under any monotone feasibility rule, with undecided re-solves (generated)", async () => {
    const ROWS = 8;
    const model: Problem = problem({
      variables: [{ name: "v" }],
      constraints: Array.from({ length: ROWS }, (_, k) => ({ name: `c${k}`, lb: k, terms: [{ var: "v", coef: 1 }] })),
    });
    const rowsOf = (sub: Problem) => new Set(sub.constraints.map((c) => Number(c.name.slice(1))));
    const conflictsArb = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { minLength: 1, maxLength: 4 }), { maxLength: 3 });
    const unknownArb = fc.array(fc.integer({ min: 0, max: (1 << ROWS) - 1 }), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(conflictsArb, unknownArb, async (conflicts, undecided) => {
        const infeasible = (rows: Set<number>) => conflicts.some((c) => c.every((r) => rows.has(r)));
        const mask = (rows: Set<number>) => [...rows].reduce((m, r) => m | (1 << r), 0);
        const oracle: FeasibilityOracle = async (sub): Promise<FeasibilityVerdict> => {
          const rows = rowsOf(sub);
          if (undecided.includes(mask(rows))) return "unknown";
          return infeasible(rows) ? "infeasible" : "feasible";
        };
        const found = await deletionFilter(model, oracle, { deadlineMs: far() });
        const rows = new Set(found.members.map((m) => (m.kind === "constraint" ? m.row : -1)));
        const all = new Set(Array.from({ length: ROWS }, (_, k) => k));
        if (!infeasible(all)) {
          expect(found.irreducible).toBe(false);
          expect(found.start).not.toBe("infeasible");
          return;
        }
        expect(found.start).not.toBe("feasible");
        if (found.start === "infeasible") expect(infeasible(rows)).toBe(true);
        if (found.irreducible) {
          expect(infeasible(rows)).toBe(true);
          for (const r of rows) expect(infeasible(new Set([...rows].filter((x) => x !== r)))).toBe(false);
        }
        if (undecided.length === 0) expect(found.irreducible).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("infeasibility verification", () => {
  const answer = (constraints: string[], bounds: [string, "lower" | "upper" | "both"][], irreducible = true) => ({
    constraints: constraints.map((name) => ({ name })),
    variable_bounds: bounds.map(([variable, bound]) => ({ variable, bound })),
    irreducible,
  });

  it("accepts the true IIS: infeasible, and each member removed leaves it feasible", async () => {
    expect(
      await verifyInfeasibility(
        LP,
        answer(
          ["demand"],
          [
            ["x", "upper"],
            ["y", "upper"],
          ],
        ),
        { oracle: jaosOracle, deadlineMs: far() },
      ),
    ).toBe(true);
  });

  it("rejects a subset that is feasible", async () => {
    expect(await verifyInfeasibility(LP, answer(["demand"], [["x", "upper"]]), { oracle: jaosOracle, deadlineMs: far() })).toBe(false);
  });

  it("rejects a subset called irreducible that holds a member it does not need, and accepts it when not called irreducible", async () => {
    const padded = answer(
      ["demand", "cap"],
      [
        ["x", "upper"],
        ["y", "both"],
      ],
    );
    expect(await verifyInfeasibility(LP, padded, { oracle: jaosOracle, deadlineMs: far() })).toBe(false);
    expect(await verifyInfeasibility(LP, { ...padded, irreducible: false }, { oracle: jaosOracle, deadlineMs: far() })).toBe(true);
  });

  it("tells what the subset alone is: feasible (verified false), infeasible even when reducible, and no members is no conflict", async () => {
    const far_ = { deadlineMs: far() };
    expect(await checkInfeasibility(LP, answer(["demand"], [["x", "upper"]]), { oracle: jaosOracle, ...far_ })).toEqual({
      verified: false,
      subset: "feasible",
    });
    const padded = answer(
      ["demand", "cap"],
      [
        ["x", "upper"],
        ["y", "upper"],
      ],
    );
    expect(await checkInfeasibility(LP, padded, { oracle: jaosOracle, ...far_ })).toEqual({ verified: false, subset: "infeasible" });
    expect(await checkInfeasibility(LP, answer([], []), { oracle: jaosOracle, ...far_ })).toEqual({ verified: false, subset: "feasible" });
  });

  it("rejects names the problem does not have, and answers null when out of time", async () => {
    expect(await verifyInfeasibility(LP, answer(["nowhere"], []), { oracle: jaosOracle, deadlineMs: far() })).toBe(false);
    expect(
      await verifyInfeasibility(
        LP,
        answer(
          ["demand"],
          [
            ["x", "upper"],
            ["y", "upper"],
          ],
        ),
        { oracle: jaosOracle, deadlineMs: 0 },
      ),
    ).toBeNull();
  });

  it("reads a column's two bounds back as two members, and binary bounds as [0, 1]", () => {
    expect(membersOf(MILP, answer([], [["c", "both"]]))).toEqual([
      { kind: "bound", column: 2, side: "lower" },
      { kind: "bound", column: 2, side: "upper" },
    ]);
    const sub = subproblem(MILP, membersOf(MILP, answer(["link"], [["c", "upper"]])));
    expect(sub.variables[2]).toEqual({ name: "c", type: "integer", lb: null, ub: 1 });
    expect(sub.constraints.map((c) => c.name)).toEqual(["link"]);
    expect(sub.objective.terms).toEqual([]);
  });
});

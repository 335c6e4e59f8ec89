import { describe, expect, it } from "vitest";
import {
  deletionFilter,
  type FeasibilityOracle,
  infeasibilityOf,
  jaosOracle,
  membersOf,
  subproblem,
  verifyInfeasibility,
} from "../../../../../../functions/core/solvers/iis/index.js";
import { solveJaos } from "../../../../../../functions/core/solvers/jaos/index.js";
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
    expect(await verifyInfeasibility(MILP, answer, jaosOracle, { deadlineMs: far() })).toBe(true);
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
        jaosOracle,
        { deadlineMs: far() },
      ),
    ).toBe(true);
  });

  it("rejects a subset that is feasible", async () => {
    expect(await verifyInfeasibility(LP, answer(["demand"], [["x", "upper"]]), jaosOracle, { deadlineMs: far() })).toBe(false);
  });

  it("rejects a subset called irreducible that holds a member it does not need, and accepts it when not called irreducible", async () => {
    const padded = answer(
      ["demand", "cap"],
      [
        ["x", "upper"],
        ["y", "both"],
      ],
    );
    expect(await verifyInfeasibility(LP, padded, jaosOracle, { deadlineMs: far() })).toBe(false);
    expect(await verifyInfeasibility(LP, { ...padded, irreducible: false }, jaosOracle, { deadlineMs: far() })).toBe(true);
  });

  it("rejects names the problem does not have, and answers null when out of time", async () => {
    expect(await verifyInfeasibility(LP, answer(["nowhere"], []), jaosOracle, { deadlineMs: far() })).toBe(false);
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
        jaosOracle,
        { deadlineMs: 0 },
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

import { describe, expect, it } from "vitest";
import { ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import { ISSUE_CASES, indicator } from "../../../../support/numerics/cases.js";
import { type Answer, judgeAnswer } from "../../../../support/numerics/judge.js";

/** The numerics suite's judge on answers written by hand: each kind of wrong, the honest non-answers, the right ones. */
const fixedCharge = ISSUE_CASES[0]!; // eight facilities 10 + x, M = 1e7, demand 3: optimum 13
const problem = ProblemSchema.parse(fixedCharge.problem);
const point = (open: number, amount: number, y = 1): Record<string, number> => {
  const out: Record<string, number> = {};
  for (let j = 0; j < 8; j++) {
    out[`y${j}`] = j === open ? y : 0;
    out[`x${j}`] = j === open ? amount : 0;
  }
  return out;
};
const answer = (status: string, objective: number | null, solution: Record<string, number> | null, message: string | null = null): Answer => ({
  status,
  objective_value: objective,
  solution,
  error_message: message,
});
const judge = (a: Answer) => judgeAnswer(fixedCharge, problem, a);

describe("numerics suite judge", () => {
  it("right: the optimum at a point that holds, within 1e-6 of it", () => {
    expect(judge(answer("optimal", 13, point(2, 3)))).toMatchObject({ judgement: "right", kind: null });
    expect(judge(answer("optimal", 12.999999, point(2, 2.999999)))).toMatchObject({ judgement: "right" });
  });

  it("the issue's answer, snapped: a broken point; unsnapped: better than the optimum", () => {
    expect(judge(answer("optimal", 3.000003, point(0, 3, 0)))).toMatchObject({ judgement: "wrong", kind: "broken point" });
    expect(judge(answer("optimal", 3.000003, point(0, 3, 3e-7)))).toMatchObject({ judgement: "wrong", kind: "better than the optimum" });
  });

  it("wrong verdicts, objectives and points", () => {
    expect(judge(answer("infeasible", null, null))).toMatchObject({ kind: "false verdict" });
    expect(judge(answer("unbounded", null, null))).toMatchObject({ kind: "false verdict" });
    expect(judge(answer("optimal", 14, point(2, 3)))).toMatchObject({ kind: "objective not its point's" });
    expect(judge(answer("optimal", 14, point(2, 4)))).toMatchObject({ kind: "off the optimum" });
    expect(judge(answer("optimal", 13, null))).toMatchObject({ kind: "no point" });
    expect(judge(answer("feasible", 13, { ...point(2, 3), y1: 0.5 }))).toMatchObject({ kind: "broken point" });
  });

  it("honest non-answers: error (whatever its point), feasible and time_limit at points that hold", () => {
    expect(judge(answer("error", 3, point(0, 3, 0), "the point breaks link0"))).toMatchObject({ judgement: "error", kind: null });
    expect(judge(answer("feasible", 20, point(2, 10)))).toMatchObject({ judgement: "feasible", kind: null });
    expect(judge(answer("time_limit", null, null))).toMatchObject({ judgement: "time_limit", kind: null });
    expect(judge(answer("time_limit", 3, point(0, 3, 0)))).toMatchObject({ judgement: "wrong", kind: "broken point" });
  });

  it("an infeasible model: infeasible is right, a point that holds within tolerance is still wrong", () => {
    // y0 = 1 needs x0 ≥ 5 − but x0 ≤ 0; and at least one bonus must be taken: infeasible.
    const c = indicator({ items: [{ bonus: 1, unit: 0, level: 5, room: 0, offMeansZero: false }], resource: 10, atLeast: 1, M: 1e9 });
    expect(c.expected).toBe("infeasible");
    const p = ProblemSchema.parse(c.problem);
    expect(judgeAnswer(c, p, answer("infeasible", null, null))).toMatchObject({ judgement: "right" });
    // y0 = 1, x0 = 0 breaks on0 by 5 on a side of 5 − 1e9: within 1e-6 of that side, so the point check passes it.
    expect(judgeAnswer(c, p, answer("optimal", 1, { y0: 1, x0: 0 }))).toMatchObject({ judgement: "wrong", kind: "point on an infeasible model" });
  });
});

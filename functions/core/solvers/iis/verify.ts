import type { Problem } from "../../problem/schema.js";
import type { Infeasibility } from "../types.js";
import type { FeasibilityOracle, FeasibilityVerdict } from "./deletion-filter.js";
import { type Member, membersOf, subproblem } from "./members.js";

/** Above this many members an irreducible answer's irreducibility is not re-checked (one solve per member). */
export const VERIFY_MAX_MEMBERS = 50;

/** What a check re-solves with (never the solver that produced the answer), and until when. */
export interface VerifyOptions {
  oracle: FeasibilityOracle;
  deadlineMs: number;
  now?: () => number;
}

export interface InfeasibilityCheck {
  /** true: every check held; false: a re-solve contradicts the answer; null: not (fully) checked. */
  verified: boolean | null;
  /**
   * The oracle's word on the subset alone: "infeasible" proves the problem infeasible (whatever the rest
   * of the answer), "feasible" (a checked point) shows the subset is no conflict, "unknown" decides nothing.
   */
  subset: FeasibilityVerdict;
}

/**
 * The checker's verdict on an explained infeasibility, by re-solving with an oracle of the caller's
 * choice (never trusting the solver that produced it): the subset must be infeasible and, where it is
 * called irreducible and has at most VERIFY_MAX_MEMBERS members, the subset with any one member removed
 * must be feasible. false: a re-solve contradicts the answer (or it names what the problem does not have);
 * true: every check held; null: not (fully) checked — too many members, the time ran out, or an
 * "unknown" re-solve.
 */
export async function checkInfeasibility(
  problem: Problem,
  infeasibility: Pick<Infeasibility, "constraints" | "variable_bounds" | "irreducible">,
  options: VerifyOptions,
): Promise<InfeasibilityCheck> {
  const { oracle } = options;
  const now = options.now ?? Date.now;
  let members: Member[];
  try {
    members = membersOf(problem, infeasibility);
  } catch {
    return { verified: false, subset: "unknown" };
  }
  // No members: no conflict (integrality alone always holds), and nothing to solve.
  if (members.length === 0) return { verified: false, subset: "feasible" };
  const decide = async (subset: Member[]) => {
    const leftMs = options.deadlineMs - now();
    return leftMs <= 0 ? "unknown" : oracle(subproblem(problem, subset), leftMs / 1000);
  };
  const whole = await decide(members);
  if (whole === "feasible") return { verified: false, subset: whole };
  if (whole === "unknown") return { verified: null, subset: whole };
  if (!infeasibility.irreducible) return { verified: true, subset: whole };
  if (members.length > VERIFY_MAX_MEMBERS) return { verified: null, subset: whole };
  let complete = true;
  for (let k = 0; k < members.length; k++) {
    const verdict = await decide(members.filter((_, i) => i !== k));
    if (verdict === "infeasible") return { verified: false, subset: whole };
    if (verdict === "unknown") complete = false;
  }
  return { verified: complete ? true : null, subset: whole };
}

/** checkInfeasibility's verdict alone. */
export async function verifyInfeasibility(
  problem: Problem,
  infeasibility: Pick<Infeasibility, "constraints" | "variable_bounds" | "irreducible">,
  options: VerifyOptions,
): Promise<boolean | null> {
  return (await checkInfeasibility(problem, infeasibility, options)).verified;
}

import type { Problem } from "../../problem/schema.js";
import type { Infeasibility } from "../types.js";
import type { FeasibilityOracle } from "./deletion-filter.js";
import { type Member, membersOf, subproblem } from "./members.js";

/** Above this many members an irreducible answer's irreducibility is not re-checked (one solve per member). */
export const VERIFY_MAX_MEMBERS = 50;

export interface VerifyOptions {
  deadlineMs: number;
  now?: () => number;
}

/**
 * The checker's verdict on an explained infeasibility, by re-solving with an oracle of the caller's
 * choice (never trusting the solver that produced it): the subset must be infeasible, and where it is
 * called irreducible and has at most VERIFY_MAX_MEMBERS members, the subset with any one member removed
 * must be feasible. false: a re-solve contradicts the answer (or it names what the problem does not have);
 * true: every check held; null: not (fully) checked — too many members, the time ran out, or an
 * "unknown" re-solve.
 */
export async function verifyInfeasibility(
  problem: Problem,
  infeasibility: Pick<Infeasibility, "constraints" | "variable_bounds" | "irreducible">,
  oracle: FeasibilityOracle,
  options: VerifyOptions,
): Promise<boolean | null> {
  const now = options.now ?? Date.now;
  let members: Member[];
  try {
    members = membersOf(problem, infeasibility);
  } catch {
    return false;
  }
  const decide = async (subset: Member[]) => {
    const leftMs = options.deadlineMs - now();
    return leftMs <= 0 ? "unknown" : oracle(subproblem(problem, subset), leftMs / 1000);
  };
  const whole = await decide(members);
  if (whole === "feasible") return false;
  if (whole === "unknown") return null;
  if (!infeasibility.irreducible) return true;
  if (members.length > VERIFY_MAX_MEMBERS) return null;
  let complete = true;
  for (let k = 0; k < members.length; k++) {
    const verdict = await decide(members.filter((_, i) => i !== k));
    if (verdict === "infeasible") return false;
    if (verdict === "unknown") complete = false;
  }
  return complete ? true : null;
}

import type { Problem } from "../../problem/schema.js";
import { allMembers, type Member, memberKey, subproblem } from "./members.js";

export type FeasibilityVerdict = "feasible" | "infeasible" | "unknown";

/**
 * Decides one subproblem (a feasibility problem, integrality kept) within `timeLimitSeconds`. "unknown"
 * is any answer short of a proof: a time limit, a solver error, a claimed point that fails the checker.
 */
export type FeasibilityOracle = (subproblem: Problem, timeLimitSeconds: number) => Promise<FeasibilityVerdict>;

export interface FilterOptions {
  /** When to stop (ms on the `now` clock): what is left then is returned, `irreducible: false`. */
  deadlineMs: number;
  now?: () => number;
  /** A subset claimed infeasible to start from (e.g. a solver's IIS), checked first; default every member. */
  start?: readonly Member[];
  /**
   * Members known to be needed (removing one makes `start` feasible): kept without a solve, and part of
   * the answer. E.g. SCIP's IIS is irreducible in its constraints, so only its bounds are filtered.
   */
  keep?: readonly Member[];
}

export interface FilterResult {
  /**
   * An infeasible subset: irreducible when `irreducible`, else the smallest one reached in time. When
   * `start` is "feasible", the starting set itself (no conflict at all).
   */
  members: Member[];
  irreducible: boolean;
  oracleCalls: number;
  /**
   * The oracle's word on the starting set, asked before anything is dropped: "infeasible" when it (or,
   * later, a subset of it) was proved infeasible; "feasible" when a checked point satisfies all of it, and
   * the filter stopped there (a wrong infeasible verdict, or a solver's wrong IIS); "unknown" when no
   * re-solve decided it — the answer is then not irreducible unless a later subset was proved infeasible.
   */
  start: FeasibilityVerdict;
}

/**
 * The deletion filter (Chinneck): drop a member, and if the rest stays infeasible it was not needed;
 * if the rest turns feasible it is part of every IIS inside the rest, so it stays. What stays when
 * every member has been tried is irreducible: each member was needed in a superset of the final set,
 * and a subset of a feasible system is feasible. Members go in blocks (half of them first; a block
 * halves while its removal turns the rest feasible, and doubles after each removal that keeps it
 * infeasible), so a small IIS among many members costs about |IIS|·log(members/|IIS|) solves instead
 * of one per member.
 *
 * The start is not taken on trust: a solver's infeasible verdict or its IIS may be wrong, so the oracle
 * decides the start first (one re-solve), and a start it finds feasible ends the filter (`start:
 * "feasible"`). An empty start is feasible without a solve: integrality alone always holds. An
 * "unknown" verdict keeps the member, and the answer is then not claimed irreducible.
 */
export async function deletionFilter(problem: Problem, oracle: FeasibilityOracle, options: FilterOptions): Promise<FilterResult> {
  const now = options.now ?? Date.now;
  const needed: Member[] = [...(options.keep ?? [])];
  const kept = new Set(needed.map(memberKey));
  let pending = (options.start ?? allMembers(problem)).filter((m) => !kept.has(memberKey(m)));
  if (needed.length + pending.length === 0) return { members: [], irreducible: false, oracleCalls: 0, start: "feasible" };
  let oracleCalls = 0;
  const startLeftMs = options.deadlineMs - now();
  if (startLeftMs <= 0) return { members: [...needed, ...pending], irreducible: false, oracleCalls, start: "unknown" };
  oracleCalls++;
  let start = await oracle(subproblem(problem, [...needed, ...pending]), startLeftMs / 1000);
  if (start === "feasible") return { members: [...needed, ...pending], irreducible: false, oracleCalls, start };
  let block = Math.max(1, Math.ceil(pending.length / 2));
  let proved = true;
  while (pending.length > 0) {
    const leftMs = options.deadlineMs - now();
    if (leftMs <= 0) return { members: [...needed, ...pending], irreducible: false, oracleCalls, start };
    block = Math.min(block, pending.length);
    oracleCalls++;
    const verdict = await oracle(subproblem(problem, [...needed, ...pending.slice(block)]), leftMs / 1000);
    if (verdict === "infeasible") {
      // A subset of the start proved infeasible proves the start infeasible too.
      start = "infeasible";
      pending = pending.slice(block);
      block *= 2;
    } else if (block > 1) {
      block = Math.ceil(block / 2);
    } else {
      if (verdict === "unknown") proved = false;
      needed.push(pending[0]!);
      pending = pending.slice(1);
    }
  }
  // What is left is the last set proved infeasible (each drop proves its rest; a kept member changes
  // nothing), or the start: irreducible only when that set was proved infeasible.
  return { members: needed, irreducible: proved && start === "infeasible", oracleCalls, start };
}

import fc from "fast-check";
import type { ProblemInput } from "../../../functions/core/problem/schema.js";
import { type Base, best, bigM, type Column, int, type Row, sum, terms } from "./shared.js";

// ---------------------------------------------------------------- disjunctive scheduling

export interface DisjunctiveRecipe {
  jobs: { duration: number; release: number; weight: number; due: number | null }[];
  makespanWeight: number;
  M: number;
}

function* permutations(n: number): Generator<number[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of permutations(n - 1)) for (let at = 0; at <= rest.length; at++) yield [...rest.slice(0, at), n - 1, ...rest.slice(at)];
}

/**
 * One machine, y_ij = 1 when job i precedes job j (i < j):
 *   before_ij: s_i + p_i ≤ s_j + M(1 − y_ij)    after_ij: s_j + p_j ≤ s_i + M·y_ij
 * min Σ w_i (s_i + p_i) + W·Cmax with s_i ≥ r_i, Cmax ≥ s_i + p_i and due rows s_i ≤ d_i − p_i.
 * A cyclic y is infeasible (its binding rows summed round the cycle give 0 ≤ −Σp). An acyclic y is an
 * order; for it the earliest-start schedule is the least point of the order's LP (by induction along the
 * order), so with w, W ≥ 0 it is optimal, and the order is feasible iff that schedule meets the due dates.
 * Its starts differ by less than max r + Σp ≤ 46 < M, so the rows of the other side are void there.
 */
export function disjunctive(r: DisjunctiveRecipe): Base {
  const n = r.jobs.length;
  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([i, j]);
  const useMakespan = r.makespanWeight > 0;
  const rows: Row[] = pairs.flatMap(([i, j]): Row[] => [
    {
      name: `before${i}_${j}`,
      terms: terms([
        [`s${i}`, 1],
        [`s${j}`, -1],
        [`y${i}_${j}`, r.M],
      ]),
      ub: r.M - r.jobs[i]!.duration,
    },
    {
      name: `after${i}_${j}`,
      terms: terms([
        [`s${j}`, 1],
        [`s${i}`, -1],
        [`y${i}_${j}`, -r.M],
      ]),
      ub: -r.jobs[j]!.duration,
    },
  ]);
  r.jobs.forEach((job, i) => {
    if (job.due !== null) rows.push({ name: `due${i}`, terms: terms([[`s${i}`, 1]]), ub: job.due - job.duration });
    if (useMakespan)
      rows.push({
        name: `makespan${i}`,
        terms: terms([
          ["cmax", 1],
          [`s${i}`, -1],
        ]),
        lb: job.duration,
      });
  });
  const problem: ProblemInput = {
    name: "disjunctive",
    variables: [
      ...r.jobs.map((job, i): Column => ({ name: `s${i}`, lb: job.release })),
      ...pairs.map(([i, j]): Column => ({ name: `y${i}_${j}`, type: "binary" })),
      ...(useMakespan ? [{ name: "cmax" }] : []),
    ],
    objective: {
      constant: sum(r.jobs.map((job) => job.weight * job.duration)),
      terms: terms([
        ...r.jobs.map((job, i): [string, number] => [`s${i}`, job.weight]),
        ...(useMakespan ? [["cmax", r.makespanWeight] as [string, number]] : []),
      ]),
    },
    constraints: rows,
  };
  const candidates = [...permutations(n)].map((order) => {
    const start = new Array<number>(n).fill(0);
    let free = 0;
    for (const i of order) {
      start[i] = Math.max(r.jobs[i]!.release, free);
      free = start[i]! + r.jobs[i]!.duration;
    }
    if (r.jobs.some((job, i) => job.due !== null && start[i]! + job.duration > job.due)) return null;
    const position = order.map((_, k) => order.indexOf(k));
    const point: Record<string, number> = Object.fromEntries(start.map((s, i) => [`s${i}`, s]));
    for (const [i, j] of pairs) point[`y${i}_${j}`] = position[i]! < position[j]! ? 1 : 0;
    if (useMakespan) point.cmax = free;
    const value = sum(r.jobs.map((job, i) => job.weight * (start[i]! + job.duration))) + r.makespanWeight * (useMakespan ? free : 0);
    return { value, point };
  });
  return best(candidates, problem);
}

export const disjunctiveRecipe = fc.record({
  jobs: fc.array(fc.record({ duration: int(1, 9), release: int(0, 10), weight: int(0, 5), due: fc.option(int(1, 40), { nil: null, freq: 3 }) }), {
    minLength: 2,
    maxLength: 4,
  }),
  makespanWeight: int(0, 3),
  M: bigM,
});

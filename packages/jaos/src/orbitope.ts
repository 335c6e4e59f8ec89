/**
 * Orbitopal fixing for a packing/partitioning orbitope (after Kaibel, Peinhardt & Pfetsch 2011).
 *
 * An orbitope here is an m×k matrix of binary columns x[i][j] where each matrix row i is a model row
 * allowing at most one of its k columns at 1 (a set packing or partitioning row), and where every
 * permutation of the k matrix columns ("blocks", e.g. interchangeable tables, machines, colours) is a
 * symmetry of the whole model (symmetry.ts finds and verifies it). Every solution then has an image
 * under that symmetry group in which the blocks are sorted by their first row holding a 1: with f_j
 * that row of block j (m when the block is empty), f_0 < f_1 < … strictly among non-empty blocks and
 * empty blocks last. Symmetric images have the same objective, so restricting the search to such
 * sorted points keeps an optimal solution (and an improving one below any incumbent) in the tree:
 * every other pruning rule removes points by their objective or feasibility, which a point and its
 * sorted image share.
 *
 * The fixing bounds f_j from both sides under a node's column bounds:
 * - earliest: a_0 = the first row whose x[i][0] may be 1, a_j = the first row after a_{j−1} whose
 *   x[i][j] may be 1 (f_j > f_{j−1} ≥ a_{j−1}); x[i][j] = 0 for every i < a_j.
 * - latest: a column fixed to 1 at row i makes f_j ≤ i, and a non-empty block j+1 needs a non-empty
 *   block j with f_j < f_{j+1}: b_j = min(first fixed 1 of block j, b_{j+1} − 1).
 * a_j > b_j: the node holds no sorted point; a_j = b_j: x[a_j][j] = 1.
 */

import type { LpModel } from "./model.js";

export interface Orbitope {
  /** Matrix rows (model rows with at most one 1 among their k columns). */
  readonly rows: number;
  /** Matrix columns: the interchangeable blocks. */
  readonly blocks: number;
  /** Model column of x[i][j] at i·blocks + j. */
  readonly columns: Int32Array;
}

/**
 * Tightens `lower`/`upper` (a node's column bounds, changed in place) to the sorted points of the
 * orbitope. Returns the number of bounds changed, or -1 when the node holds no sorted point.
 */
export function orbitopalFixing(orb: Orbitope, lower: Float64Array, upper: Float64Array): number {
  const { rows: m, blocks: k, columns } = orb;
  let changed = 0;
  // earliest first rows, with the zeros above them
  const earliest = new Int32Array(k);
  let previous = -1;
  for (let j = 0; j < k; j++) {
    let a = previous + 1;
    while (a < m && upper[columns[a * k + j]!]! < 0.5) a++;
    for (let i = 0; i < Math.min(a, m); i++) {
      const c = columns[i * k + j]!;
      if (upper[c]! < 0.5) continue;
      if (lower[c]! > 0.5) return -1;
      upper[c] = 0;
      changed++;
    }
    earliest[j] = a;
    previous = a;
  }
  // latest first rows, from the last block back
  let next = m; // m: no later block is known to be non-empty
  for (let j = k - 1; j >= 0; j--) {
    let b = next >= m ? m : next - 1;
    for (let i = 0; i < Math.min(b, m); i++) {
      if (lower[columns[i * k + j]!]! > 0.5) {
        b = i;
        break;
      }
    }
    if (b < m) {
      const a = earliest[j]!;
      if (a > b) return -1;
      if (a === b) {
        const c = columns[a * k + j]!;
        if (lower[c]! < 0.5) {
          lower[c] = 1;
          changed++;
        }
      }
    }
    next = b;
  }
  return changed;
}

/**
 * The model with the orbitope's fixings at the root in its column bounds, so that the root LP, its cuts
 * and heuristics work on the sorted points too (cuts valid for them suffice: every point has a sorted
 * image of the same objective). A model with no sorted point is left as it is: the root node then closes.
 */
export function withSortedBlocks(model: LpModel, orbitope: Orbitope): LpModel {
  const colLower = model.colLower.slice();
  const colUpper = model.colUpper.slice();
  return orbitopalFixing(orbitope, colLower, colUpper) > 0 ? { ...model, colLower, colUpper } : model;
}

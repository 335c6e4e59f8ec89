/**
 * Finds an orbitope (orbitope.ts) in a MILP: k interchangeable blocks of columns and rows, tied
 * together only by packing/partitioning rows that take one binary column of each block (a seating
 * plan's "every guest at one table" rows over interchangeable tables).
 *
 * 1. Candidate rows: Σ c·x ≤ c over k ≥ 2 binary columns with one coefficient c > 0 (at most one 1).
 * 2. Blocks: the connected components of the columns joined by every other row. The first candidate
 *    row's columns must fall in k different components; the orbitope rows are the candidate rows with
 *    one column in each of those k components.
 * 3. A pairing of block 0 with each block j: colour refinement of the whole model (columns by cost,
 *    bounds and type, rows by bounds, each orbitope row its own colour), then the element of block j
 *    with the colour of each element of block 0. Colours only propose the pairing:
 * 4. each swap of block 0 with block j is checked exactly to map the model onto itself (costs, bounds,
 *    types, row bounds and every coefficient). The k−1 swaps generate every permutation of the blocks.
 *
 * Nothing is claimed unless step 4 passes, so a hash collision or an unlucky pairing only loses the
 * symmetry. Models without candidate rows cost one pass over the rows.
 */
import type { LpModel } from "./model.js";
import type { Orbitope } from "./orbitope.js";
import { toRowWise, type CsrMatrix } from "./sparse.js";

/** Rounds of colour refinement at most (each one pass over the nonzeros). */
const REFINEMENT_ROUNDS = 20;
/** Distinct candidate row lengths tried as the block count. */
const BLOCK_COUNTS_TRIED = 3;

export function detectOrbitope(model: LpModel): Orbitope | null {
  const rowWise = toRowWise(model.a);
  const lengths = new Map<number, number[]>();
  for (let i = 0; i < model.rows; i++) {
    const k = rowWise.start[i + 1]! - rowWise.start[i]!;
    if (k >= 2 && atMostOneRow(model, rowWise, i)) {
      const list = lengths.get(k);
      if (list) list.push(i);
      else lengths.set(k, [i]);
    }
  }
  if (lengths.size === 0) return null;
  // the block count with the most candidate rows first
  const tries = [...lengths.entries()].sort((p, q) => q[1].length - p[1].length || p[0] - q[0]).slice(0, BLOCK_COUNTS_TRIED);
  for (const [k, candidates] of tries) {
    const found = orbitopeOfLength(model, rowWise, k, candidates);
    if (found) return found;
  }
  return null;
}

function atMostOneRow(model: LpModel, rowWise: CsrMatrix, i: number): boolean {
  const s = rowWise.start[i]!;
  const c = rowWise.value[s]!;
  if (!(c > 0) || model.rowUpper[i] !== c) return false;
  for (let p = s; p < rowWise.start[i + 1]!; p++) {
    const j = rowWise.index[p]!;
    if (rowWise.value[p] !== c || !model.integer[j] || model.colLower[j] !== 0 || model.colUpper[j] !== 1) return false;
  }
  return true;
}

function orbitopeOfLength(model: LpModel, rowWise: CsrMatrix, k: number, candidates: number[]): Orbitope | null {
  const ignored = new Uint8Array(model.rows);
  for (const i of candidates) ignored[i] = 1;
  const comp = components(model, rowWise, ignored);
  const first = candidates[0]!;
  const blockOf = new Map<number, number>();
  for (let p = rowWise.start[first]!; p < rowWise.start[first + 1]!; p++) blockOf.set(comp[rowWise.index[p]!]!, blockOf.size);
  if (blockOf.size !== k) return null;
  const orbitRows: number[] = [];
  const columns: number[] = [];
  for (const i of candidates) {
    const line = new Array<number>(k).fill(-1);
    let ok = true;
    for (let p = rowWise.start[i]!; p < rowWise.start[i + 1]! && ok; p++) {
      const j = rowWise.index[p]!;
      const b = blockOf.get(comp[j]!);
      if (b === undefined || line[b] !== -1) ok = false;
      else line[b] = j;
    }
    if (!ok) continue;
    // a block swap maps line[0] onto line[b]: columns that differ in cost or length rule it out cheaply
    if (!line.every((j) => alike(model, j, line[0]!))) return null;
    orbitRows.push(i);
    columns.push(...line);
  }
  const orb: Orbitope = { rows: orbitRows.length, blocks: k, columns: Int32Array.from(columns) };
  return blocksInterchangeable(model, rowWise, comp, blockOf, orbitRows) ? orb : null;
}

function alike(model: LpModel, j: number, t: number): boolean {
  const { start } = model.a;
  return model.cost[j] === model.cost[t] && start[j + 1]! - start[j]! === start[t + 1]! - start[t]!;
}

/** Components of the columns joined by the rows not ignored; a row gets its columns' component. */
function components(model: LpModel, rowWise: CsrMatrix, ignored: Uint8Array): Int32Array {
  const parent = Int32Array.from({ length: model.cols }, (_, j) => j);
  const find = (j: number): number => {
    while (parent[j] !== j) {
      parent[j] = parent[parent[j]!]!;
      j = parent[j]!;
    }
    return j;
  };
  for (let i = 0; i < model.rows; i++) {
    if (ignored[i]) continue;
    const s = rowWise.start[i]!;
    const e = rowWise.start[i + 1]!;
    if (e === s) continue;
    const r0 = find(rowWise.index[s]!);
    for (let p = s + 1; p < e; p++) {
      const r = find(rowWise.index[p]!);
      if (r !== r0) parent[r] = r0;
    }
  }
  const comp = new Int32Array(model.cols);
  for (let j = 0; j < model.cols; j++) comp[j] = find(j);
  return comp;
}

/** Whether swapping block 0 with each other block (paired by refined colours) maps the model onto itself. */
function blocksInterchangeable(model: LpModel, rowWise: CsrMatrix, comp: Int32Array, blockOf: Map<number, number>, orbitRows: number[]): boolean {
  const k = blockOf.size;
  const { colColour, rowColour } = refinedColours(model, rowWise, orbitRows);
  // each block's columns and rows by colour (rows of a block: rows whose columns lie in it, not ignored)
  const colsByColour = Array.from({ length: k }, () => new Map<number, number[]>());
  const rowsByColour = Array.from({ length: k }, () => new Map<number, number[]>());
  for (let j = 0; j < model.cols; j++) {
    const b = blockOf.get(comp[j]!);
    if (b !== undefined) addTo(colsByColour[b]!, colColour[j]!, j);
  }
  const orbitRow = new Uint8Array(model.rows);
  for (const i of orbitRows) orbitRow[i] = 1;
  for (let i = 0; i < model.rows; i++) {
    const s = rowWise.start[i]!;
    if (orbitRow[i] || s === rowWise.start[i + 1]) continue;
    const b = blockOf.get(comp[rowWise.index[s]!]!);
    if (b === undefined) continue;
    // a row inside one block (rows spanning blocks are candidate rows that stay in place)
    let inside = true;
    for (let p = s; p < rowWise.start[i + 1]! && inside; p++) if (comp[rowWise.index[p]!] !== comp[rowWise.index[s]!]) inside = false;
    if (!inside) continue;
    addTo(rowsByColour[b]!, rowColour[i]!, i);
  }
  const colMap = Int32Array.from({ length: model.cols }, (_, j) => j);
  const rowMap = Int32Array.from({ length: model.rows }, (_, i) => i);
  for (let b = 1; b < k; b++) {
    if (!pairBlocks(colsByColour[0]!, colsByColour[b]!, colMap) || !pairBlocks(rowsByColour[0]!, rowsByColour[b]!, rowMap)) return false;
    const ok = isAutomorphism(model, rowWise, colMap, rowMap);
    colMap.forEach((_, j) => {
      colMap[j] = j;
    });
    rowMap.forEach((_, i) => {
      rowMap[i] = i;
    });
    if (!ok) return false;
  }
  return true;
}

function addTo(byColour: Map<number, number[]>, colour: number, element: number): void {
  const list = byColour.get(colour);
  if (list) list.push(element);
  else byColour.set(colour, [element]);
}

/**
 * Sets `map` to swap each element of `a` with the element of `b` of the same colour (elements sharing
 * a colour, such as repeated rows, in the order they come); false when the colours differ.
 */
function pairBlocks(a: Map<number, number[]>, b: Map<number, number[]>, map: Int32Array): boolean {
  if (a.size !== b.size) return false;
  for (const [colour, xs] of a) {
    const ys = b.get(colour);
    if (ys === undefined || ys.length !== xs.length) return false;
    xs.forEach((x, n) => {
      map[x] = ys[n]!;
      map[ys[n]!] = x;
    });
  }
  return true;
}

/** Exact check that the column and row permutations map the model onto itself (only moved elements are checked). */
function isAutomorphism(model: LpModel, rowWise: CsrMatrix, colMap: Int32Array, rowMap: Int32Array): boolean {
  const { a } = model;
  for (let j = 0; j < model.cols; j++) {
    const t = colMap[j]!;
    if (t === j) continue;
    if (
      model.cost[j] !== model.cost[t] ||
      model.colLower[j] !== model.colLower[t] ||
      model.colUpper[j] !== model.colUpper[t] ||
      model.integer[j] !== model.integer[t]
    )
      return false;
    if (a.start[j + 1]! - a.start[j]! !== a.start[t + 1]! - a.start[t]!) return false;
    for (let p = a.start[j]!; p < a.start[j + 1]!; p++) if (entry(rowWise, rowMap[a.index[p]!]!, t) !== a.value[p]) return false;
  }
  for (let i = 0; i < model.rows; i++) {
    const t = rowMap[i]!;
    if (t === i) continue;
    if (model.rowLower[i] !== model.rowLower[t] || model.rowUpper[i] !== model.rowUpper[t]) return false;
    if (rowWise.start[i + 1]! - rowWise.start[i]! !== rowWise.start[t + 1]! - rowWise.start[t]!) return false;
    for (let p = rowWise.start[i]!; p < rowWise.start[i + 1]!; p++) if (entry(rowWise, t, colMap[rowWise.index[p]!]!) !== rowWise.value[p]) return false;
  }
  return true;
}

/** A(i, j), by binary search in row i (toRowWise lists a row's columns in increasing order). */
function entry(rowWise: CsrMatrix, i: number, j: number): number {
  let lo = rowWise.start[i]!;
  let hi = rowWise.start[i + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = rowWise.index[mid]!;
    if (c === j) return rowWise.value[mid]!;
    if (c < j) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/**
 * Colour refinement (1-dimensional Weisfeiler–Leman) of the bipartite row/column graph with the
 * coefficients as edge labels: colours are 32-bit hashes of an element's data and of the multiset of
 * (coefficient, neighbour colour), refined until the number of colours stops growing.
 */
function refinedColours(model: LpModel, rowWise: CsrMatrix, orbitRows: number[]): { colColour: Int32Array; rowColour: Int32Array } {
  const { a } = model;
  let colColour = new Int32Array(model.cols);
  let rowColour = new Int32Array(model.rows);
  for (let j = 0; j < model.cols; j++)
    colColour[j] = mix(mix(mix(hashNumber(model.cost[j]!), hashNumber(model.colLower[j]!)), hashNumber(model.colUpper[j]!)), model.integer[j]!);
  for (let i = 0; i < model.rows; i++) rowColour[i] = mix(hashNumber(model.rowLower[i]!), hashNumber(model.rowUpper[i]!));
  orbitRows.forEach((i, n) => {
    rowColour[i] = mix(rowColour[i]!, 0x51ed270b + n);
  });
  let classes = countDistinct(colColour) + countDistinct(rowColour);
  for (let round = 0; round < REFINEMENT_ROUNDS; round++) {
    const nextCol = new Int32Array(model.cols);
    const nextRow = new Int32Array(model.rows);
    for (let j = 0; j < model.cols; j++) {
      let sum = 0;
      for (let p = a.start[j]!; p < a.start[j + 1]!; p++) sum = (sum + mix(hashNumber(a.value[p]!), rowColour[a.index[p]!]!)) | 0;
      nextCol[j] = mix(colColour[j]!, sum);
    }
    for (let i = 0; i < model.rows; i++) {
      let sum = 0;
      for (let p = rowWise.start[i]!; p < rowWise.start[i + 1]!; p++) sum = (sum + mix(hashNumber(rowWise.value[p]!), colColour[rowWise.index[p]!]!)) | 0;
      nextRow[i] = mix(rowColour[i]!, sum);
    }
    colColour = nextCol;
    rowColour = nextRow;
    const now = countDistinct(colColour) + countDistinct(rowColour);
    if (now <= classes) break;
    classes = now;
  }
  return { colColour, rowColour };
}

function countDistinct(v: Int32Array): number {
  return new Set(v).size;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function hashNumber(v: number): number {
  f64[0] = v === 0 ? 0 : v; // −0 and 0 alike
  return mix(u32[0]!, u32[1]!);
}

/** A 32-bit mixing step (murmur3's finaliser on a combination of the two words). */
function mix(h: number, v: number): number {
  let x = (h ^ Math.imul(v, 0x9e3779b1)) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}

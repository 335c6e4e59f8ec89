/**
 * Fresh factorisations of bases installed from statuses, kept by their basic columns in position order.
 *
 * The branch-and-bound installs the same stored basis again and again: each strong-branching probe of a
 * node restores the node's basis after the previous probe pivoted away, the chosen child restores it
 * after the probes, and the second child of a parent is solved from the parent's basis that its sibling
 * already installed. `SimplexState.setBasis` orders the basic columns by index, so the same basic set
 * gives the same basis matrix, and the factorisation of a matrix is a function of the matrix alone: a
 * copy of its factors (`LuFactor.saveFactors`) brought back stands for a new factorisation to the bit,
 * and the search's path is unchanged. Least recently used entries go first.
 */
import type { FactorSnapshot } from "./lu.js";

/**
 * Entries kept at most: on the 28 wide + 18 scale MILPs (docs/decisions.md) 8 entries catch the probes'
 * and the chosen child's restores and most sibling jumps; 64 add a few percent of hits for 8x the memory.
 */
export const FACTOR_CACHE_ENTRIES = 8;
/** Bytes the saved factors may take in all (the least recently used go first beyond it). */
export const FACTOR_CACHE_BYTES = 64 * 2 ** 20;

interface Entry {
  hash: number;
  bytes: number;
  basic: Int32Array;
  factors: FactorSnapshot;
}

export class FactorCache {
  private readonly entries: Entry[] = [];
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly capacity: number = FACTOR_CACHE_ENTRIES,
    readonly maxBytes: number = FACTOR_CACHE_BYTES,
  ) {}

  /** The factors saved for this basic column order, or null. */
  find(basic: Int32Array): FactorSnapshot | null {
    const hash = hashOf(basic);
    const { entries } = this;
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (entry.hash !== hash || !sameColumns(entry.basic, basic)) continue;
      // most recently used last
      entries.splice(e, 1);
      entries.push(entry);
      this.hits++;
      return entry.factors;
    }
    this.misses++;
    return null;
  }

  add(basic: Int32Array, factors: FactorSnapshot): void {
    const bytes = factorBytes(factors) + 4 * basic.length;
    if (this.capacity <= 0 || bytes > this.maxBytes) return;
    while (this.entries.length > 0 && (this.entries.length >= this.capacity || this.bytes + bytes > this.maxBytes)) this.bytes -= this.entries.shift()!.bytes;
    this.entries.push({ hash: hashOf(basic), bytes, basic: basic.slice(), factors });
    this.bytes += bytes;
  }
}

function hashOf(basic: Int32Array): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < basic.length; k++) h = Math.imul(h ^ basic[k], 0x01000193);
  return h;
}

function sameColumns(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** The typed arrays' bytes of saved factors. */
export function factorBytes(f: FactorSnapshot): number {
  let bytes = 0;
  for (const a of [f.lRow, f.lStart, f.lIndex, f.lValue, f.lPackRow, f.lPackStart, f.order, f.orderIndex, f.posOfRow, f.rowOfPos, f.diag])
    bytes += a.byteLength;
  for (const u of [f.uRows, f.uCols]) bytes += u.start.byteLength + u.length.byteLength + u.capacity.byteLength + u.key.byteLength + u.value.byteLength;
  return bytes;
}

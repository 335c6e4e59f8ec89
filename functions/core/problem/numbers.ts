/**
 * Numbers in problem files. Both formats write numbers as JavaScript's shortest round-trip
 * representation, so a value written and read back is the same double, bit for bit.
 */

/** Shortest text that reads back as exactly `value` (`String` already is; only −0 needs care). */
export function formatNumber(value: number): string {
  return value === 0 ? "0" : String(value);
}

/**
 * The value of a plain decimal literal (`12`, `-1.5`, `.5`, `3e-7`, `+2.`), NaN for anything else.
 * `Number()` alone also takes hex, binary, `Infinity` and the empty string (as 0); a file saying any
 * of those is wrong, not a number. −0 reads as 0 so it cannot leak into the canonical problem.
 */
export function parseDecimal(token: string): number {
  if (token.length === 0) return NaN;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    const isDigit = c >= 48 && c <= 57;
    // . + - e E
    if (!isDigit && c !== 46 && c !== 43 && c !== 45 && c !== 101 && c !== 69) return NaN;
  }
  const value = Number(token);
  return value === 0 ? 0 : value;
}

/** `inf`, `infinity`, `infinite` in any case, with an optional sign: ±Infinity, else NaN. */
export function parseInfinityWord(token: string): number {
  let sign = 1;
  let word = token;
  if (word.startsWith("+")) word = word.slice(1);
  else if (word.startsWith("-")) {
    sign = -1;
    word = word.slice(1);
  }
  const lower = word.toLowerCase();
  return lower === "inf" || lower === "infinity" || lower === "infinite" ? sign * Infinity : NaN;
}

const scratch = new DataView(new ArrayBuffer(8));

/** The next double above `x` (finite `x`). */
export function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  scratch.setFloat64(0, x);
  const bits = scratch.getBigInt64(0);
  scratch.setBigInt64(0, x > 0 ? bits + 1n : bits - 1n);
  return scratch.getFloat64(0);
}

/** The next double below `x` (finite `x`). */
export function nextDown(x: number): number {
  return -nextUp(-x);
}

/**
 * How to write a row with two finite, different bounds in MPS: a type, a right-hand side and a
 * RANGES value. MPS keeps one bound and the width, and readers rebuild the other bound as
 * `rhs + |R|` (G row) or `rhs − |R|` (L row) in double arithmetic, which is not always exact for
 * `R = upper − lower`. This tries R and its neighbouring doubles on both anchors, so the bound a
 * reader rebuilds is the original one (0.1 and 0.3 come back exactly). When the width has a larger
 * exponent than a side it can sit on a coarser grid (−0.8 and 0.6: 1.4), no width works, `exact` is
 * false and the rebuilt side is off by one unit in its last place: a limit of MPS. LP keeps both.
 */
export function encodeRangedRow(lower: number, upper: number): { type: "L" | "G"; rhs: number; range: number; exact: boolean } {
  let width = upper - lower;
  if (!Number.isFinite(width)) width = Number.MAX_VALUE;
  let up = width;
  let down = width;
  for (let step = 0; step < 8; step++) {
    for (const candidate of step === 0 ? [width] : [up, down]) {
      if (lower + candidate === upper) return { type: "G", rhs: lower, range: candidate, exact: true };
      if (upper - candidate === lower) return { type: "L", rhs: upper, range: candidate, exact: true };
    }
    up = nextUp(up);
    down = nextDown(down);
  }
  return { type: "G", rhs: lower, range: width, exact: false };
}

import type { Expr, Pos } from "./ast.js";
import { dataError } from "./errors.js";
import type { Evaluator, Frame } from "./evaluate.js";
import { atomKey, formatIndex, SetValue, type Tuple } from "./values.js";

/**
 * Set expressions: building them (ranges, literals, builders, union, inter, diff, symdiff, cross) and
 * testing membership without building them where the structure allows (`(i,j) in A cross B` checks
 * `i in A` and `j in B`). Sets keep their order: data order, ascending ranges, left then right.
 */

export function buildSet(ev: Evaluator, expr: Expr, frame: Frame): SetValue {
  const dimension = expr.type?.kind === "set" ? expr.type.dimension : 1;
  switch (expr.kind) {
    case "range": {
      const { from, to, step } = rangeBounds(ev, expr, frame);
      const count = Math.floor((to - from) / step + 1e-9) + 1;
      // Measured before anything is built: `1..n` with n = 10,000,000 allocates nothing.
      ev.caps.checkSetSize(count, at(expr.pos));
      const set = new SetValue(1);
      for (let k = 0; k < count; k++) set.add([from + k * step]);
      return set;
    }
    case "setop": {
      const left = ev.evalSet(expr.left, frame);
      const right = ev.evalSet(expr.right, frame);
      if (expr.op === "cross") {
        ev.caps.checkSetSize(left.size * right.size, at(expr.pos));
        const set = new SetValue(dimension);
        for (const a of left.tuples) for (const b of right.tuples) set.add([...a, ...b]);
        return set;
      }
      if (expr.op === "union" || expr.op === "symdiff") ev.caps.checkSetSize(left.size + right.size, at(expr.pos));
      const set = new SetValue(dimension);
      switch (expr.op) {
        case "union":
          for (const t of left.tuples) set.add(t);
          for (const t of right.tuples) set.add(t);
          break;
        case "inter":
          for (const t of left.tuples) if (right.has(t)) set.add(t);
          break;
        case "diff":
          for (const t of left.tuples) if (!right.has(t)) set.add(t);
          break;
        case "symdiff":
          for (const t of left.tuples) if (!right.has(t)) set.add(t);
          for (const t of right.tuples) if (!left.has(t)) set.add(t);
          break;
      }
      return set;
    }
    case "setlit":
      return SetValue.of(
        dimension,
        expr.elements.map((e) => (e.kind === "tuple" ? e.items.map((i) => ev.evalElement(i, frame)) : [ev.evalElement(e, frame)])),
      );
    case "setbuilder": {
      const set = new SetValue(dimension);
      ev.iterate(expr.indexing, frame, (index) => {
        ev.caps.checkSetSize(set.size + 1, at(expr.pos));
        set.add([...index]);
      });
      return set;
    }
    default:
      throw new Error(`internal: ${expr.kind} evaluated as a set`);
  }
}

function rangeBounds(ev: Evaluator, expr: Extract<Expr, { kind: "range" }>, frame: Frame): { from: number; to: number; step: number } {
  const from = ev.evalNum(expr.from, frame);
  const to = ev.evalNum(expr.to, frame);
  const step = expr.step === null ? 1 : ev.evalNum(expr.step, frame);
  if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isFinite(step) || step <= 0) {
    throw dataError({
      code: "non_finite",
      at: expr.pos,
      message: `range ${from}..${to}${expr.step === null ? "" : ` by ${step}`} needs finite ends and a positive step`,
    });
  }
  return { from, to, step };
}

/** Where a set is built, for a cap's message. */
const at = (pos: Pos): string => `the set at line ${pos.line}, column ${pos.column}`;

/**
 * The set's own copy of `tuple` when it is a member (so the string key "1" becomes the element 1),
 * or null. Walks ranges and products structurally: `(i,j) in NODES cross NODES` builds no product.
 */
export function memberOf(ev: Evaluator, expr: Expr, tuple: Tuple, frame: Frame): Tuple | null {
  switch (expr.kind) {
    case "name":
      return ev.evalSet(expr, frame).find(tuple) ?? null;
    case "range": {
      const value = tuple[0];
      if (tuple.length !== 1 || typeof value !== "number") return null;
      const { from, to, step } = rangeBounds(ev, expr, frame);
      if (value < from || value > to) return null;
      return step === 1 && Number.isInteger(from) ? (Number.isInteger(value) ? [value] : null) : (ev.evalSet(expr, frame).findAtom(value) ?? null);
    }
    case "setop": {
      if (expr.op === "cross") {
        const leftDim = setDimension(expr.left);
        const left = memberOf(ev, expr.left, tuple.slice(0, leftDim), frame);
        const right = left === null ? null : memberOf(ev, expr.right, tuple.slice(leftDim), frame);
        return left === null || right === null ? null : [...left, ...right];
      }
      const left = memberOf(ev, expr.left, tuple, frame);
      const right = memberOf(ev, expr.right, tuple, frame);
      if (expr.op === "union") return left ?? right;
      if (expr.op === "inter") return left !== null && right !== null ? left : null;
      if (expr.op === "diff") return right === null ? left : null;
      return left === null ? right : right === null ? left : null;
    }
    default:
      return ev.evalSet(expr, frame).find(tuple) ?? null;
  }
}

/** Why `tuple` is not in the set, for messages: "`x9` is not in set `MARKETS`". */
export function whyNotIn(ev: Evaluator, expr: Expr, tuple: Tuple, frame: Frame): string {
  const shown = tuple.length === 1 ? `\`${atomKey(tuple[0]!)}\`` : formatIndex(tuple);
  if (expr.kind === "name") return `${shown} is not in set \`${expr.name}\``;
  if (expr.kind === "setop" && expr.op === "cross") {
    const leftDim = setDimension(expr.left);
    const leftPart = tuple.slice(0, leftDim);
    if (memberOf(ev, expr.left, leftPart, frame) === null) return whyNotIn(ev, expr.left, leftPart, frame);
    return whyNotIn(ev, expr.right, tuple.slice(leftDim), frame);
  }
  if (expr.kind === "range") {
    const { from, to, step } = rangeBounds(ev, expr, frame);
    return `${shown} is not in ${from}..${to}${step === 1 ? "" : ` by ${step}`}`;
  }
  return `${shown} is not in the indexing set`;
}

function setDimension(expr: Expr): number {
  return expr.type?.kind === "set" && expr.type.dimension > 0 ? expr.type.dimension : 1;
}

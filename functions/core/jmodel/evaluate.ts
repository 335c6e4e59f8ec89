import type { Expr, IndexEntry, Indexing, NameRef, ParamDecl, SetDecl } from "./ast.js";
import { CapCounter } from "../limits/model-caps.js";
import { dataError } from "./errors.js";
import { buildSet, memberOf, whyNotIn } from "./evaluate-sets.js";
import { atomKey, formatIndex, type SetValue, type TupleMap, type Atom, type Tuple } from "./values.js";

/**
 * Evaluation of the constant part of a checked model: numbers, conditions, sets, indexings and
 * parameter look-ups. Runs on the syntax tree the checker annotated (names resolved to declarations or
 * dummy slots; `closed` marks values independent of dummies, which are computed once and cached).
 * A frame is the array of dummy values of the declaration being expanded.
 */

export type Frame = Atom[];

/** One iteration over an indexing: the dummies' frame, the index buffer it fills, and what sees each member. */
interface IndexWalk {
  indexing: Indexing;
  frame: Frame;
  index: Atom[];
  visit: (index: Atom[]) => void;
}

export interface ParamTable {
  decl: ParamDecl;
  /** Values by index: the dataset's, then computed and default values as they are first read. */
  values: TupleMap<number>;
  /** Dummy slots for evaluating the declaration's own expressions (a declaration never reads itself). */
  frame: Frame;
}

export class Evaluator {
  /**
   * The instance's size caps, counted while expanding: every member an indexing visits is a step, and a
   * set is measured before it is built (limits/model-caps.ts).
   */
  constructor(readonly caps: CapCounter = new CapCounter()) {}

  readonly sets = new Map<SetDecl, SetValue>();
  readonly params = new Map<ParamDecl, ParamTable>();
  private readonly setCache = new Map<Expr, SetValue>();
  private readonly numberCache = new Map<Expr, number>();

  // ------------------------------------------------------------ numbers and elements

  evalNum(expr: Expr, frame: Frame): number {
    switch (expr.kind) {
      case "number":
        return expr.value;
      case "infinity":
        return Infinity;
      case "name": {
        const resolved = expr.resolved!;
        if (resolved.kind === "param") return this.paramAt(resolved.decl, expr, frame);
        if (resolved.kind === "dummy") {
          const atom = frame[resolved.slot]!;
          if (typeof atom === "number") return atom;
          throw dataError({ code: "not_a_number", at: expr.pos, message: `index \`${expr.name}\` is \`${atom}\` here, which is not a number` });
        }
        throw new Error(`internal: ${resolved.kind} \`${expr.name}\` evaluated as a number`);
      }
      case "unary":
        return expr.op === "-" ? -this.evalNum(expr.operand, frame) : this.evalNum(expr.operand, frame);
      case "plus": {
        let total = 0;
        for (let k = 0; k < expr.terms.length; k++) total += expr.signs[k]! * this.evalNum(expr.terms[k]!, frame);
        if (Number.isNaN(total)) throw dataError({ code: "non_finite", at: expr.pos, message: "this sum adds infinities of opposite signs" });
        return total;
      }
      case "binary": {
        const left = this.evalNum(expr.left, frame);
        const right = this.evalNum(expr.right, frame);
        let result: number;
        switch (expr.op) {
          case "*":
            result = left * right;
            break;
          case "/":
            if (right === 0) throw dataError({ code: "division_by_zero", at: expr.opPos, message: `division by zero (${left} / 0)` });
            result = left / right;
            break;
          case "mod":
            if (right === 0) throw dataError({ code: "division_by_zero", at: expr.opPos, message: `\`mod\` by zero (${left} mod 0)` });
            result = left - right * Math.floor(left / right);
            break;
          case "^":
            result = left ** right;
            break;
        }
        if (Number.isNaN(result)) throw dataError({ code: "non_finite", at: expr.opPos, message: `${left} ${expr.op} ${right} is not a number` });
        return result;
      }
      case "if":
        if (this.evalBool(expr.condition, frame)) return this.evalNum(expr.then, frame);
        return expr.otherwise === null ? 0 : this.evalNum(expr.otherwise, frame);
      case "call":
        return this.evalCall(expr, frame);
      case "iterated": {
        if (expr.closed) {
          const cached = this.numberCache.get(expr);
          if (cached !== undefined) return cached;
        }
        let result = expr.op === "sum" ? 0 : expr.op === "min" ? Infinity : -Infinity;
        this.iterate(expr.indexing, frame, () => {
          const value = this.evalNum(expr.body, frame);
          result = expr.op === "sum" ? result + value : expr.op === "min" ? Math.min(result, value) : Math.max(result, value);
        });
        if (expr.closed) this.numberCache.set(expr, result);
        return result;
      }
      default:
        throw new Error(`internal: ${expr.kind} evaluated as a number`);
    }
  }

  private evalCall(expr: Extract<Expr, { kind: "call" }>, frame: Frame): number {
    if (expr.fn === "card") return this.evalSet(expr.args[0]!, frame).size;
    const args = expr.args.map((a) => this.evalNum(a, frame));
    const x = args[0]!;
    let result: number;
    switch (expr.fn) {
      case "abs":
        result = Math.abs(x);
        break;
      case "floor":
        result = Math.floor(x);
        break;
      case "ceil":
        result = Math.ceil(x);
        break;
      case "sqrt":
        result = Math.sqrt(x);
        break;
      case "exp":
        result = Math.exp(x);
        break;
      case "log":
        result = Math.log(x);
        break;
      case "min":
        result = Math.min(...args);
        break;
      case "max":
        result = Math.max(...args);
        break;
    }
    if (Number.isNaN(result)) throw dataError({ code: "non_finite", at: expr.pos, message: `\`${expr.fn}(${args.join(", ")})\` is not a number` });
    return result;
  }

  /** A set element: a string literal, a dummy's value, or a number. */
  evalElement(expr: Expr, frame: Frame): Atom {
    if (expr.kind === "string") return expr.atom!;
    if (expr.kind === "name" && expr.resolved?.kind === "dummy") return frame[expr.resolved.slot]!;
    return this.evalNum(expr, frame);
  }

  /**
   * The entry of `map` at `indices`, evaluated one component at a time (the hot path of every
   * parameter and variable look-up: no tuple is allocated).
   */
  lookup<V>(map: TupleMap<V>, indices: Expr[] | null, frame: Frame): V | undefined {
    if (indices === null) return map.scalar;
    let node: unknown = map.root;
    for (let i = 0; i < indices.length; i++) {
      node = (node as Map<Atom, unknown>).get(this.evalElement(indices[i]!, frame));
      if (node === undefined) return undefined;
    }
    return node as V;
  }

  indexTuple(ref: NameRef, frame: Frame): Atom[] {
    return (ref.indices ?? []).map((e) => this.evalElement(e, frame));
  }

  // ------------------------------------------------------------ parameters

  private paramAt(decl: ParamDecl, ref: NameRef, frame: Frame): number {
    const table = this.params.get(decl)!;
    const value = this.lookup(table.values, ref.indices, frame);
    return value !== undefined ? value : this.paramMiss(table, ref, frame);
  }

  /** Not in the table: outside the domain (an error), or a computed or default value to work out once. */
  private paramMiss(table: ParamTable, ref: NameRef, frame: Frame): number {
    const decl = table.decl;
    const tuple = this.indexTuple(ref, frame);
    const paramFrame = table.frame;
    const miss = decl.indexing === null ? null : this.matchDomain(decl.indexing, tuple, paramFrame);
    if (miss !== null) {
      throw dataError({ code: "not_in_domain", at: ref.pos, message: `parameter \`${decl.name}\`: ${describeDomainMiss(miss, tuple)}`, symbol: decl.name });
    }
    const source = decl.definition ?? decl.defaultValue;
    if (source === null) {
      const index = decl.indexing === null ? "" : ` for index ${formatIndex(tuple)}`;
      throw dataError({ code: "missing_value", at: decl.pos, message: `missing parameter \`${decl.name}\`${index}`, symbol: decl.name });
    }
    const value = this.evalNum(source, paramFrame);
    this.checkParamValue(decl, value, tuple, paramFrame);
    table.values.set(tuple, value);
    return value;
  }

  /** The declaration's own rules (`integer`, `binary`, `>= 0`, …), for any value it takes. */
  checkParamValue(decl: ParamDecl, value: number, tuple: Tuple, frame: Frame): void {
    if (decl.integer && !Number.isInteger(value)) throw outOfRange(decl, value, tuple, "an integer");
    if (decl.binary && value !== 0 && value !== 1) throw outOfRange(decl, value, tuple, "0 or 1");
    for (const check of decl.checks) {
      const bound = this.evalNum(check.value, frame);
      const ok =
        check.op === ">="
          ? value >= bound
          : check.op === "<="
            ? value <= bound
            : check.op === ">"
              ? value > bound
              : check.op === "<"
                ? value < bound
                : value !== bound;
      if (!ok) throw outOfRange(decl, value, tuple, `${check.op} ${bound}`);
    }
  }

  // ------------------------------------------------------------ conditions

  evalBool(expr: Expr, frame: Frame): boolean {
    switch (expr.kind) {
      case "compare": {
        const left = this.evalElement(expr.left, frame);
        const right = this.evalElement(expr.right, frame);
        if (expr.op === "==" || expr.op === "!=") {
          // Atoms are canonical, so equal elements are identical values.
          const equal = left === right;
          return expr.op === "==" ? equal : !equal;
        }
        if (typeof left !== typeof right) {
          throw dataError({
            code: "not_a_number",
            at: expr.opPos,
            message: `cannot order \`${left}\` and \`${right}\`: compare numbers with numbers, strings with strings`,
          });
        }
        switch (expr.op) {
          case "<":
            return left < right;
          case "<=":
            return left <= right;
          case ">":
            return left > right;
          case ">=":
            return left >= right;
        }
        break;
      }
      case "logical":
        return expr.op === "and"
          ? this.evalBool(expr.left, frame) && this.evalBool(expr.right, frame)
          : this.evalBool(expr.left, frame) || this.evalBool(expr.right, frame);
      case "not":
        return !this.evalBool(expr.operand, frame);
      case "in": {
        const item = expr.item.kind === "tuple" ? expr.item.items.map((e) => this.evalElement(e, frame)) : [this.evalElement(expr.item, frame)];
        return (this.member(expr.set, item, frame) !== null) !== expr.negated;
      }
    }
    throw new Error(`internal: ${expr.kind} evaluated as a condition`);
  }

  // ------------------------------------------------------------ sets

  evalSet(expr: Expr, frame: Frame): SetValue {
    if (expr.kind === "name") return this.sets.get((expr.resolved as { decl: SetDecl }).decl)!;
    if (expr.closed) {
      const cached = this.setCache.get(expr);
      if (cached !== undefined) return cached;
    }
    const value = buildSet(this, expr, frame);
    if (expr.closed) this.setCache.set(expr, value);
    return value;
  }

  /** The set's own copy of `tuple` when it is a member, or null (see `memberOf`). */
  member(expr: Expr, tuple: Tuple, frame: Frame): Tuple | null {
    return memberOf(this, expr, tuple, frame);
  }

  /** Why `tuple` is not in the set, for messages: "`x9` is not in set `MARKETS`". */
  whyNotIn(expr: Expr, tuple: Tuple, frame: Frame): string {
    return whyNotIn(this, expr, tuple, frame);
  }

  // ------------------------------------------------------------ indexings

  /**
   * Calls `visit` once per member of the indexing, with the dummies bound in `frame` and the full index
   * (every entry's components, anonymous ones included) in a buffer that `visit` must copy to keep.
   */
  iterate(indexing: Indexing, frame: Frame, visit: (index: Atom[]) => void): void {
    this.iterateFrom({ indexing, frame, index: [], visit }, 0, 0);
  }

  /**
   * Entry `k` onwards of one iteration, its index filled up to `offset`. What stays the same for the
   * whole iteration is one object (`walk`), so the recursion allocates nothing per member.
   */
  private iterateFrom(walk: IndexWalk, k: number, offset: number): void {
    const { indexing, frame, index, visit } = walk;
    const entries = indexing.entries;
    if (k === entries.length) {
      this.caps.step();
      if (index.length !== offset) index.length = offset;
      if (indexing.condition === null || this.evalBool(indexing.condition, frame)) visit(index);
      return;
    }
    const entry = entries[k]!;
    const set = this.evalSet(entry.set, frame);
    const dummies = entry.dummies;
    const tuples = entry.filterPositions !== undefined ? this.slice(set, entry.filterPositions, dummies!, frame) : set.tuples;
    const single = dummies !== null && dummies.length === 1 ? dummies[0]!.slot! : -1;
    for (let n = 0; n < tuples.length; n++) {
      const t = tuples[n]!;
      if (single >= 0) {
        // The common case, one dummy over a one-dimensional set: no inner loops.
        index[offset] = t[0]!;
        frame[single] = t[0]!;
      } else {
        for (let p = 0; p < t.length; p++) index[offset + p] = t[p]!;
        if (dummies !== null) {
          for (let p = 0; p < dummies.length; p++) if (!dummies[p]!.filter) frame[dummies[p]!.slot!] = t[p]!;
        }
      }
      this.iterateFrom(walk, k + 1, offset + t.length);
    }
  }

  /** The members of a tuple set whose components bound outside (filter dummies) match. */
  private slice(set: SetValue, fixed: readonly number[], dummies: NonNullable<IndexEntry["dummies"]>, frame: Frame): readonly Tuple[] {
    const values: Atom[] = new Array(fixed.length);
    for (let n = 0; n < fixed.length; n++) values[n] = frame[dummies[fixed[n]!]!.slot!]!;
    return set.slice(fixed, values);
  }

  /**
   * Checks that `tuple` is a member of the indexing, binding its dummies in `frame` and replacing each
   * component by the set's own element (in place). Returns null when it is, else why it is not.
   */
  matchDomain(indexing: Indexing, tuple: Atom[], frame: Frame): DomainMiss | null {
    let offset = 0;
    for (const entry of indexing.entries) {
      const width = entry.dimension || entry.dummies?.length || 1;
      if (width === 1 && entry.set.kind === "name" && offset < tuple.length && (entry.dummies === null || !entry.dummies[0]!.filter)) {
        // The common case, `p in PLANTS`: one hash look-up, no slices.
        const member = this.evalSet(entry.set, frame).findAtom(tuple[offset]!);
        if (member === undefined) return { reason: this.whyNotIn(entry.set, [tuple[offset]!], frame), notInSet: true };
        tuple[offset] = member[0]!;
        if (entry.dummies !== null) frame[entry.dummies[0]!.slot!] = member[0]!;
        offset += 1;
        continue;
      }
      const part = tuple.slice(offset, offset + width);
      if (part.length < width) return { reason: `it has ${tuple.length} components, fewer than the domain's`, notInSet: false };
      const member = this.member(entry.set, part, frame);
      if (member === null) return { reason: this.whyNotIn(entry.set, part, frame), notInSet: true };
      for (let p = 0; p < width; p++) tuple[offset + p] = member[p]!;
      for (const [p, dummy] of (entry.dummies ?? []).entries()) {
        if (!dummy.filter) frame[dummy.slot!] = member[p]!;
        else if (frame[dummy.slot!] !== member[p]) {
          return { reason: `\`${atomKey(member[p]!)}\` does not match \`${dummy.name}\` = \`${atomKey(frame[dummy.slot!]!)}\``, notInSet: false };
        }
      }
      offset += width;
    }
    if (offset !== tuple.length) return { reason: `it has ${tuple.length} components, the domain ${offset}`, notInSet: false };
    if (indexing.condition !== null && !this.evalBool(indexing.condition, frame)) {
      return { reason: "the indexing condition is false for it", notInSet: false };
    }
    return null;
  }
}

function outOfRange(decl: ParamDecl, value: number, tuple: Tuple, rule: string): Error {
  const what = `parameter \`${decl.name}\`${tuple.length > 0 ? ` at ${formatIndex(tuple)}` : ""}`;
  return dataError({ code: "value_out_of_range", at: decl.pos, message: `${what} is ${value}, but must be ${rule}`, symbol: decl.name });
}

/** Why an index is outside a domain; `notInSet` when the reason reads "`x9` is not in set `S`". */
export interface DomainMiss {
  reason: string;
  notInSet: boolean;
}

/** "index `x9` is not in set `MARKETS` (at [`seattle`,`x9`])" or "index [..] is outside the domain: …". */
export function describeDomainMiss(miss: DomainMiss, tuple: Tuple): string {
  const whole = tuple.length === 1 ? `\`${atomKey(tuple[0]!)}\`` : formatIndex(tuple);
  if (!miss.notInSet) return `index ${whole} is outside the domain: ${miss.reason}`;
  // "index `x9` is not in set `MARKETS` (at [`seattle`,`x9`])"; no "(at …)" when the reason shows it all.
  return miss.reason.startsWith(whole) ? `index ${miss.reason}` : `index ${miss.reason} (at ${whole})`;
}

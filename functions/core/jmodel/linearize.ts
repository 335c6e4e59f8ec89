import type { CapCounter } from "../limits/model-caps.js";
import type { Expr, NameRef, Pos, VarDecl } from "./ast.js";
import { dataError } from "./errors.js";
import { describeDomainMiss, type Evaluator, type Frame } from "./evaluate.js";
import type { Term } from "../problem/schema.js";
import type { TupleMap } from "./values.js";

/**
 * Expansion of variable expressions into linear (and, for the objective, quadratic) forms. An
 * expression is added into a sink scaled by a factor, so `sum`s and products with constants cost no
 * intermediate objects; only a product of two variable expressions builds its two factors.
 */

/** The variables of one `var` declaration: index to position in the problem's variable list. */
export interface VarTable {
  decl: VarDecl;
  positions: TupleMap<number>;
}

export interface LinearSink {
  constant: number;
  addTerm(variable: number, coef: number): void;
  addQuadratic(first: number, second: number, coef: number): void;
}

/**
 * One row being built: a dense coefficient array over all variables plus the list of those touched,
 * reused from row to row, so merging duplicate terms costs O(1) and resetting costs O(terms).
 */
export class DenseRow implements LinearSink {
  constant = 0;
  private readonly coefs: Float64Array;
  private readonly seen: Uint8Array;
  private readonly touched: Int32Array;
  private count = 0;
  /** Whether the touched variables arrived in increasing order (usual: rows follow declaration order). */
  private ascending = true;
  /** coef of x_i·x_j by key i·n + j with i ≤ j; only the objective's row has one. */
  private readonly quadratic: Map<number, number> | null;

  /** Counts the objective's distinct quadratic terms as nonzeros, as they appear (a dense `x[i]*x[j]` stops at the cap). */
  private readonly caps: CapCounter | null;

  /** `size`: the variable count; only the objective's row `acceptsQuadratic` terms. */
  constructor(
    private readonly size: number,
    { acceptsQuadratic = false, caps = null }: { acceptsQuadratic?: boolean; caps?: CapCounter | null } = {},
  ) {
    this.caps = caps;
    this.coefs = new Float64Array(size);
    this.seen = new Uint8Array(size);
    this.touched = new Int32Array(size);
    this.quadratic = acceptsQuadratic ? new Map() : null;
  }

  addTerm(variable: number, coef: number): void {
    if (this.seen[variable] === 0) {
      this.seen[variable] = 1;
      if (this.count > 0 && variable < this.touched[this.count - 1]!) this.ascending = false;
      this.touched[this.count++] = variable;
      this.coefs[variable] = coef;
    } else this.coefs[variable]! += coef;
  }

  addQuadratic(first: number, second: number, coef: number): void {
    if (this.quadratic === null) throw new Error("internal: quadratic term outside the objective");
    const key = first <= second ? first * this.size + second : second * this.size + first;
    const previous = this.quadratic.get(key);
    if (previous === undefined) this.caps?.addNonzeros(1, "the objective's quadratic terms");
    this.quadratic.set(key, (previous ?? 0) + coef);
  }

  /** The row's terms by variable order, duplicates merged and zeros dropped; empties the row for reuse. */
  drainTerms(names: readonly string[], what: string, at: Pos): Term[] {
    const order = this.touched.subarray(0, this.count);
    if (!this.ascending) order.sort();
    const terms: Term[] = [];
    for (let k = 0; k < order.length; k++) {
      const v = order[k]!;
      const coef = this.coefs[v]!;
      this.coefs[v] = 0;
      this.seen[v] = 0;
      if (coef === 0) continue;
      if (!Number.isFinite(coef)) throw dataError({ code: "non_finite", at, message: `the coefficient of \`${names[v]}\` in ${what} is ${coef}` });
      terms.push({ var: names[v]!, coef });
    }
    this.count = 0;
    this.ascending = true;
    this.constant = 0;
    return terms;
  }

  drainQuadratic(names: readonly string[], at: Pos): { var1: string; var2: string; coef: number }[] {
    if (this.quadratic === null) return [];
    const keys = [...this.quadratic.keys()].sort((a, b) => a - b);
    const terms = [];
    for (const key of keys) {
      const coef = this.quadratic.get(key)!;
      if (coef === 0) continue;
      const var1 = names[Math.floor(key / this.size)]!;
      const var2 = names[key % this.size]!;
      if (!Number.isFinite(coef)) throw dataError({ code: "non_finite", at, message: `the coefficient of \`${var1}*${var2}\` in the objective is ${coef}` });
      terms.push({ var1, var2, coef });
    }
    this.quadratic.clear();
    return terms;
  }
}

/** A small linear form, for the factors of a product of two variable expressions. */
class SparseLinear implements LinearSink {
  constant = 0;
  readonly terms = new Map<number, number>();
  addTerm(variable: number, coef: number): void {
    this.terms.set(variable, (this.terms.get(variable) ?? 0) + coef);
  }
  addQuadratic(): void {
    throw new Error("internal: the checker lets no product of degree 3 through");
  }
}

export class Linearizer {
  constructor(
    private readonly ev: Evaluator,
    private readonly variables: ReadonlyMap<VarDecl, VarTable>,
  ) {}

  /** Adds `scale · expr` into `sink`. */
  add(expr: Expr, frame: Frame, scale: number, sink: LinearSink): void {
    if (expr.degree === 0) {
      sink.constant += scale * this.ev.evalNum(expr, frame);
      return;
    }
    switch (expr.kind) {
      case "name":
        sink.addTerm(this.position(expr, frame), scale);
        return;
      case "unary":
        this.add(expr.operand, frame, expr.op === "-" ? -scale : scale, sink);
        return;
      case "plus":
        for (let k = 0; k < expr.terms.length; k++) this.add(expr.terms[k]!, frame, expr.signs[k]! * scale, sink);
        return;
      case "binary":
        switch (expr.op) {
          case "*":
            if (expr.left.degree === 0) this.add(expr.right, frame, scale * this.ev.evalNum(expr.left, frame), sink);
            else if (expr.right.degree === 0) this.add(expr.left, frame, scale * this.ev.evalNum(expr.right, frame), sink);
            else this.product(expr.left, expr.right, frame, scale, sink);
            return;
          case "/": {
            const divisor = this.ev.evalNum(expr.right, frame);
            if (divisor === 0) throw dataError({ code: "division_by_zero", at: expr.opPos, message: "division of a variable expression by zero" });
            this.add(expr.left, frame, scale / divisor, sink);
            return;
          }
          case "^": {
            // The checker allows only the literal exponents 0, 1 and 2 on variable expressions.
            const exponent = this.ev.evalNum(expr.right, frame);
            if (exponent === 0) sink.constant += scale;
            else if (exponent === 1) this.add(expr.left, frame, scale, sink);
            else this.product(expr.left, expr.left, frame, scale, sink);
            return;
          }
          default:
            break;
        }
        break;
      case "if":
        if (this.ev.evalBool(expr.condition, frame)) this.add(expr.then, frame, scale, sink);
        else if (expr.otherwise !== null) this.add(expr.otherwise, frame, scale, sink);
        return;
      case "iterated":
        this.ev.iterate(expr.indexing, frame, () => this.add(expr.body, frame, scale, sink));
        return;
      default:
        break;
    }
    throw new Error(`internal: ${expr.kind} with variables reached the linearizer`);
  }

  /** The constant part of a linear expression (for messages about constraints left without variables). */
  constantPart(expr: Expr, frame: Frame): number {
    const form = new SparseLinear();
    this.add(expr, frame, 1, form);
    return form.constant;
  }

  /** (a·x + c)(b·y + d) = Σ a_i b_j x_i y_j + d·a·x + c·b·y + c·d */
  private product(left: Expr, right: Expr, frame: Frame, scale: number, sink: LinearSink): void {
    const a = new SparseLinear();
    this.add(left, frame, 1, a);
    let b = a;
    if (right !== left) {
      b = new SparseLinear();
      this.add(right, frame, 1, b);
    }
    for (const [i, ai] of a.terms) for (const [j, bj] of b.terms) sink.addQuadratic(i, j, scale * ai * bj);
    for (const [i, ai] of a.terms) sink.addTerm(i, scale * ai * b.constant);
    for (const [j, bj] of b.terms) sink.addTerm(j, scale * bj * a.constant);
    sink.constant += scale * a.constant * b.constant;
  }

  private position(ref: NameRef, frame: Frame): number {
    if (ref.resolved?.kind !== "var") throw new Error(`internal: \`${ref.name}\` is not a variable`);
    const table = this.variables.get(ref.resolved.decl)!;
    const position = this.ev.lookup(table.positions, ref.indices, frame);
    if (position !== undefined) return position;
    const decl = table.decl;
    const tuple = this.ev.indexTuple(ref, frame);
    const miss = decl.indexing === null ? null : this.ev.matchDomain(decl.indexing, tuple, new Array(decl.frameSize ?? 0));
    const reason = miss === null ? `index ${tuple.join(",")} is not one of its indices` : describeDomainMiss(miss, tuple);
    throw dataError({ code: "not_in_domain", at: ref.pos, message: `variable \`${decl.name}\`: ${reason}`, symbol: decl.name });
  }
}

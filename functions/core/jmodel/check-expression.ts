import type { Declaration, Expr, Indexing, NameRef, Pos } from "./ast.js";
import { BOOL, describeKind, describeType, letters, literalValue, NUMBER, UNKNOWN, type Context, type Info } from "./check-types.js";
import { problemAt, type JModelErrorCode, type JModelProblem } from "./errors.js";
import { canonicalAtom, invalidElementReason } from "./values.js";

/**
 * Static typing of JModel expressions: resolves every name (to a declaration or a dummy slot), infers
 * its type (number, element, bool, set of dimension d, tuple), its degree in the variables (0, 1, 2)
 * and whether it depends on dummies. Every problem found is recorded; checking goes on after one, with
 * the offending sub-expression typed as "unknown" so one mistake is reported once.
 */

interface Scope {
  names: Map<string, number>;
  parent: Scope | null;
}

export class ExpressionChecker {
  readonly problems: JModelProblem[] = [];
  /** Declarations already seen, in order. */
  protected readonly declared = new Map<string, Declaration>();
  /** Every declaration of the model (first of each name), to tell "declared later" from "undeclared". */
  protected readonly allNames = new Map<string, Declaration>();
  protected readonly brokenNames = new Set<string>();
  protected scope: Scope | null = null;
  protected nextSlot = 0;
  protected frameSize = 0;

  protected report({ code, at, message, symbol }: { code: JModelErrorCode; at: Pos; message: string; symbol?: string }): void {
    this.problems.push(problemAt("semantic", { code, at, message, symbol }));
  }

  // ------------------------------------------------------------ scopes

  protected beginFrame(): void {
    this.scope = null;
    this.nextSlot = 0;
    this.frameSize = 0;
  }

  protected lookupDummy(name: string): number | undefined {
    for (let s = this.scope; s !== null; s = s.parent) {
      const slot = s.names.get(name);
      if (slot !== undefined) return slot;
    }
    return undefined;
  }

  /**
   * Checks an indexing and opens its scope (the caller closes it with `closeScope(base)`). Returns the
   * slot where the scope starts, the indexing's dimension and the smallest outer slot it reads.
   */
  protected openIndexing(indexing: Indexing): { base: number; dimension: number; minFree: number } {
    const base = this.nextSlot;
    this.scope = { names: new Map(), parent: this.scope };
    let dimension = 0;
    let minFree = Infinity;
    for (const entry of indexing.entries) {
      const set = this.checkSet(entry.set, { maxDegree: 0, where: "an indexing set" });
      minFree = Math.min(minFree, set.minFree);
      const dim = set.dimension;
      entry.dimension = dim;
      dimension += dim === 0 ? (entry.dummies?.length ?? 1) : dim;
      if (entry.dummies === null) continue;
      if (dim !== 0 && entry.dummies.length !== dim) {
        const hint = dim > 1 ? `; bind it with a tuple such as (${letters(dim)}) in …` : "";
        this.report({
          code: "set_dimension",
          at: entry.pos,
          message: `this set has dimension ${dim}, but ${entry.dummies.length} index name(s) are bound to it${hint}`,
        });
      }
      const inThisTuple = new Set<string>();
      for (const dummy of entry.dummies) {
        if (inThisTuple.has(dummy.name)) {
          this.report({ code: "duplicate_dummy", at: dummy.pos, message: `index \`${dummy.name}\` appears twice in the same tuple` });
          continue;
        }
        inThisTuple.add(dummy.name);
        if (this.allNames.has(dummy.name)) {
          this.report({
            code: "dummy_shadows_name",
            at: dummy.pos,
            message: `index \`${dummy.name}\` has the name of a declared ${describeKind(this.allNames.get(dummy.name)!)}; choose another index name`,
            symbol: dummy.name,
          });
          continue;
        }
        const bound = this.lookupDummy(dummy.name);
        if (bound !== undefined) {
          if (entry.dummies.length > 1) {
            // AMPL's slice: in `{(i,k) in LINKS}` with k already bound, k filters instead of binding.
            dummy.filter = true;
            dummy.slot = bound;
            entry.filterPositions ??= [];
            entry.filterPositions.push(entry.dummies.indexOf(dummy));
            minFree = Math.min(minFree, bound < base ? bound : Infinity);
            continue;
          }
          this.report({
            code: "duplicate_dummy",
            at: dummy.pos,
            message: `index \`${dummy.name}\` is already bound by an enclosing indexing; choose another name (or write a condition \`${dummy.name} in …\`)`,
          });
          continue;
        }
        dummy.slot = this.nextSlot++;
        this.frameSize = Math.max(this.frameSize, this.nextSlot);
        this.scope.names.set(dummy.name, dummy.slot);
      }
    }
    if (indexing.condition !== null) {
      const condition = this.check(indexing.condition, { maxDegree: 0, where: "an indexing condition" });
      this.expectBool(indexing.condition, condition);
      minFree = Math.min(minFree, condition.minFree);
    }
    return { base, dimension, minFree: minFree >= base ? Infinity : minFree };
  }

  protected closeScope(base: number): void {
    this.scope = this.scope!.parent;
    this.nextSlot = base;
  }

  // ------------------------------------------------------------ expectations

  /** A number, or an element used as a number (checked when the value is known). */
  protected expectNumber(expr: Expr, info: Info, what = "a number"): void {
    if (info.type === null || info.type.kind === "number" || info.type.kind === "atom") return;
    this.report({ code: "type_mismatch", at: expr.pos, message: `expected ${what}, found ${describeType(info.type)}` });
  }

  /** A set element: number, string or dummy. */
  protected expectElement(expr: Expr, info: Info): void {
    if (info.type === null || ["number", "atom", "string"].includes(info.type.kind)) return;
    this.report({ code: "type_mismatch", at: expr.pos, message: `expected a set element (a number, a string or an index), found ${describeType(info.type)}` });
  }

  protected expectBool(expr: Expr, info: Info): void {
    if (info.type === null || info.type.kind === "bool") return;
    this.report({ code: "type_mismatch", at: expr.pos, message: `expected a condition, found ${describeType(info.type)}` });
  }

  protected checkSet(expr: Expr, ctx: Context): { dimension: number; minFree: number; ok: boolean } {
    const info = this.check(expr, ctx);
    if (info.type === null) return { dimension: 0, minFree: info.minFree, ok: false };
    if (info.type.kind !== "set") {
      this.report({ code: "type_mismatch", at: expr.pos, message: `expected a set, found ${describeType(info.type)}` });
      return { dimension: 0, minFree: info.minFree, ok: false };
    }
    return { dimension: info.type.dimension, minFree: info.minFree, ok: true };
  }

  // ------------------------------------------------------------ expressions

  check(expr: Expr, ctx: Context): Info {
    const info = this.infer(expr, ctx);
    if (info.type !== null) expr.type = info.type;
    expr.degree = info.degree;
    expr.closed = info.minFree === Infinity;
    return info;
  }

  private infer(expr: Expr, ctx: Context): Info {
    switch (expr.kind) {
      case "number":
      case "infinity":
        return { type: NUMBER, degree: 0, minFree: Infinity };
      case "string": {
        const reason = invalidElementReason(expr.value);
        if (reason !== null) this.report({ code: "invalid_element", at: expr.pos, message: `"${expr.value}" cannot be a set element: ${reason}` });
        expr.atom = canonicalAtom(expr.value);
        return { type: { kind: "string" }, degree: 0, minFree: Infinity };
      }
      case "name":
        return this.inferName(expr, ctx);
      case "unary": {
        const operand = this.check(expr.operand, ctx);
        this.expectNumber(expr.operand, operand);
        return { type: NUMBER, degree: operand.degree, minFree: operand.minFree };
      }
      case "plus": {
        let degree = 0;
        let minFree = Infinity;
        for (const term of expr.terms) {
          const info = this.check(term, ctx);
          this.expectNumber(term, info);
          degree = Math.max(degree, info.degree);
          minFree = Math.min(minFree, info.minFree);
        }
        return { type: NUMBER, degree, minFree };
      }
      case "binary":
        return this.inferArithmetic(expr, ctx);
      case "compare": {
        // Inside a condition, say which one; elsewhere (a constraint's side), the comparison itself.
        const inner: Context = { maxDegree: 0, where: ctx.maxDegree === 0 ? ctx.where : "a comparison" };
        const left = this.check(expr.left, inner);
        const right = this.check(expr.right, inner);
        this.expectElement(expr.left, left);
        this.expectElement(expr.right, right);
        return { type: BOOL, degree: 0, minFree: Math.min(left.minFree, right.minFree) };
      }
      case "logical": {
        const left = this.check(expr.left, ctx);
        const right = this.check(expr.right, ctx);
        this.expectBool(expr.left, left);
        this.expectBool(expr.right, right);
        return { type: BOOL, degree: 0, minFree: Math.min(left.minFree, right.minFree) };
      }
      case "not": {
        const operand = this.check(expr.operand, ctx);
        this.expectBool(expr.operand, operand);
        return { type: BOOL, degree: 0, minFree: operand.minFree };
      }
      case "in":
        return this.inferMembership(expr, ctx);
      case "if": {
        const condition = this.check(expr.condition, { maxDegree: 0, where: "the condition of `if`" });
        this.expectBool(expr.condition, condition);
        const then = this.check(expr.then, ctx);
        this.expectNumber(expr.then, then);
        const otherwise = expr.otherwise === null ? UNKNOWN : this.check(expr.otherwise, ctx);
        if (expr.otherwise !== null) this.expectNumber(expr.otherwise, otherwise);
        return {
          type: NUMBER,
          degree: Math.max(then.degree, otherwise.degree),
          minFree: Math.min(condition.minFree, then.minFree, otherwise.minFree),
        };
      }
      case "call":
        return this.inferCall(expr, ctx);
      case "iterated": {
        const { base, minFree } = this.openIndexing(expr.indexing);
        const bodyCtx: Context = expr.op === "sum" ? ctx : { maxDegree: 0, where: `\`${expr.op}\`` };
        const body = this.check(expr.body, bodyCtx);
        this.expectNumber(expr.body, body);
        this.closeScope(base);
        return { type: NUMBER, degree: body.degree, minFree: Math.min(minFree, body.minFree >= base ? Infinity : body.minFree) };
      }
      case "tuple": {
        let minFree = Infinity;
        for (const item of expr.items) {
          const info = this.check(item, { maxDegree: 0, where: "a tuple" });
          this.expectElement(item, info);
          minFree = Math.min(minFree, info.minFree);
        }
        return { type: { kind: "tuple", size: expr.items.length }, degree: 0, minFree };
      }
      case "range": {
        const inner = { maxDegree: 0 as const, where: "a range" };
        let minFree = Infinity;
        for (const part of [expr.from, expr.to, expr.step]) {
          if (part === null) continue;
          const info = this.check(part, inner);
          this.expectNumber(part, info);
          minFree = Math.min(minFree, info.minFree);
        }
        return { type: { kind: "set", dimension: 1 }, degree: 0, minFree };
      }
      case "setop": {
        const left = this.checkSet(expr.left, ctx);
        const right = this.checkSet(expr.right, ctx);
        const minFree = Math.min(left.minFree, right.minFree);
        if (!left.ok || !right.ok) return { type: null, degree: 0, minFree };
        if (expr.op === "cross") return { type: { kind: "set", dimension: left.dimension + right.dimension }, degree: 0, minFree };
        if (left.dimension !== 0 && right.dimension !== 0 && left.dimension !== right.dimension) {
          this.report({
            code: "set_dimension",
            at: expr.pos,
            message: `\`${expr.op}\` needs sets of the same dimension, found ${left.dimension} and ${right.dimension}`,
          });
        }
        return { type: { kind: "set", dimension: left.dimension || right.dimension }, degree: 0, minFree };
      }
      case "setlit":
        return this.inferSetLiteral(expr);
      case "setbuilder": {
        const { base, dimension, minFree } = this.openIndexing(expr.indexing);
        this.closeScope(base);
        return { type: { kind: "set", dimension }, degree: 0, minFree };
      }
    }
  }

  private inferName(expr: NameRef, ctx: Context): Info {
    const slot = this.lookupDummy(expr.name);
    if (slot !== undefined) {
      expr.resolved = { kind: "dummy", slot };
      if (expr.indices !== null)
        this.report({ code: "type_mismatch", at: expr.pos, message: `index \`${expr.name}\` is a set element and cannot be subscripted` });
      return { type: { kind: "atom" }, degree: 0, minFree: slot };
    }
    const decl = this.declared.get(expr.name);
    if (decl === undefined) {
      if (this.brokenNames.has(expr.name)) return UNKNOWN;
      const later = this.allNames.get(expr.name);
      if (later !== undefined) {
        this.report({
          code: "used_before_declaration",
          at: expr.pos,
          message: `\`${expr.name}\` is used before its declaration at line ${later.pos.line}`,
          symbol: expr.name,
        });
      } else {
        this.report({ code: "undeclared_name", at: expr.pos, message: `\`${expr.name}\` is not declared`, symbol: expr.name });
      }
      return UNKNOWN;
    }
    switch (decl.kind) {
      case "set":
        expr.resolved = { kind: "set", decl };
        if (expr.indices !== null)
          this.report({
            code: "type_mismatch",
            at: expr.pos,
            message: `set \`${decl.name}\` cannot be subscripted (indexed sets are not supported)`,
            symbol: decl.name,
          });
        return { type: { kind: "set", dimension: decl.dimension ?? 1 }, degree: 0, minFree: Infinity };
      case "param":
      case "var": {
        if (decl.kind === "param") expr.resolved = { kind: "param", decl };
        else expr.resolved = { kind: "var", decl };
        const minFree = this.checkIndices(expr, decl.arity ?? 0, decl.kind === "param" ? "parameter" : "variable");
        if (decl.kind === "param") return { type: NUMBER, degree: 0, minFree };
        if (ctx.maxDegree === 0) {
          this.report({ code: "variable_not_allowed", at: expr.pos, message: `variable \`${decl.name}\` cannot appear in ${ctx.where}`, symbol: decl.name });
          return { type: NUMBER, degree: 0, minFree };
        }
        return { type: NUMBER, degree: 1, minFree };
      }
      default:
        this.report({
          code: "wrong_symbol_kind",
          at: expr.pos,
          message: `\`${decl.name}\` is ${decl.kind === "objective" ? "the objective" : "a constraint"} and has no value in an expression`,
          symbol: decl.name,
        });
        return UNKNOWN;
    }
  }

  private checkIndices(expr: NameRef, arity: number, what: string): number {
    const given = expr.indices?.length ?? 0;
    if (given !== arity) {
      const message =
        arity === 0
          ? `${what} \`${expr.name}\` is not indexed; write \`${expr.name}\` without brackets`
          : given === 0
            ? `${what} \`${expr.name}\` is indexed over ${arity} dimension(s); write \`${expr.name}[…]\``
            : `${what} \`${expr.name}\` takes ${arity} index(es), found ${given}`;
      this.report({ code: "index_arity", at: expr.pos, message, symbol: expr.name });
    }
    let minFree = Infinity;
    for (const index of expr.indices ?? []) {
      const info = this.check(index, { maxDegree: 0, where: "an index" });
      this.expectElement(index, info);
      minFree = Math.min(minFree, info.minFree);
    }
    return minFree;
  }

  private inferArithmetic(expr: Extract<Expr, { kind: "binary" }>, ctx: Context): Info {
    const left = this.check(expr.left, ctx);
    const right = this.check(expr.right, ctx);
    this.expectNumber(expr.left, left);
    this.expectNumber(expr.right, right);
    const minFree = Math.min(left.minFree, right.minFree);
    let degree = Math.max(left.degree, right.degree);
    const tooHigh = (d: number) => d > ctx.maxDegree;
    const nonlinear = (message: string) => this.report({ code: "nonlinear", at: expr.opPos, message });
    switch (expr.op) {
      case "*":
        degree = left.degree + right.degree;
        if (degree > 0 && tooHigh(degree)) {
          nonlinear(
            degree === 2 && ctx.maxDegree === 1
              ? `product of two variable expressions in ${ctx.where} is not linear (only the objective may have quadratic terms)`
              : `product of variable expressions of degree ${degree} in ${ctx.where}; at most degree ${ctx.maxDegree} is allowed here`,
          );
          degree = ctx.maxDegree;
        }
        break;
      case "/":
        if (right.degree > 0) nonlinear("division by a variable expression is not linear");
        degree = left.degree;
        break;
      case "mod":
        if (left.degree > 0 || right.degree > 0) nonlinear("`mod` of a variable expression is not linear");
        degree = 0;
        break;
      case "^": {
        if (left.degree === 0) {
          if (right.degree > 0) nonlinear("a variable in an exponent is not linear");
          degree = 0;
          break;
        }
        const exponent = literalValue(expr.right);
        if (exponent === null || ![0, 1, 2].includes(exponent)) {
          this.report({ code: "invalid_exponent", at: expr.opPos, message: "a variable expression may only be raised to the literal power 0, 1 or 2" });
          degree = left.degree;
          break;
        }
        degree = left.degree * exponent;
        if (tooHigh(degree)) {
          nonlinear(`square of a variable expression in ${ctx.where} is not linear (only the objective may have quadratic terms)`);
          degree = ctx.maxDegree;
        }
        break;
      }
    }
    return { type: NUMBER, degree, minFree };
  }

  private inferMembership(expr: Extract<Expr, { kind: "in" }>, ctx: Context): Info {
    const item = this.check(expr.item, { maxDegree: 0, where: "a membership test" });
    const set = this.checkSet(expr.set, ctx);
    let size = 1;
    if (item.type?.kind === "tuple") size = item.type.size;
    else this.expectElement(expr.item, item);
    if (set.ok && set.dimension !== 0 && set.dimension !== size) {
      this.report({
        code: "set_dimension",
        at: expr.pos,
        message: `a ${size === 1 ? "single element" : `tuple of ${size}`} is tested against a set of dimension ${set.dimension}`,
      });
    }
    return { type: BOOL, degree: 0, minFree: Math.min(item.minFree, set.minFree) };
  }

  private inferCall(expr: Extract<Expr, { kind: "call" }>, ctx: Context): Info {
    if (expr.fn === "card") {
      if (expr.args.length !== 1) this.report({ code: "type_mismatch", at: expr.pos, message: "`card` takes one set" });
      const set = this.checkSet(expr.args[0]!, ctx);
      return { type: NUMBER, degree: 0, minFree: set.minFree };
    }
    const single = !(expr.fn === "min" || expr.fn === "max");
    if (single && expr.args.length !== 1)
      this.report({ code: "type_mismatch", at: expr.pos, message: `\`${expr.fn}\` takes one argument, found ${expr.args.length}` });
    let minFree = Infinity;
    for (const arg of expr.args) {
      const info = this.check(arg, { maxDegree: ctx.maxDegree, where: ctx.where });
      this.expectNumber(arg, info);
      if (info.degree > 0) this.report({ code: "nonlinear", at: arg.pos, message: `\`${expr.fn}\` of a variable expression is not linear` });
      minFree = Math.min(minFree, info.minFree);
    }
    return { type: NUMBER, degree: 0, minFree };
  }

  private inferSetLiteral(expr: Extract<Expr, { kind: "setlit" }>): Info {
    let dimension = 0;
    let minFree = Infinity;
    for (const element of expr.elements) {
      const info = this.check(element, { maxDegree: 0, where: "a set literal" });
      minFree = Math.min(minFree, info.minFree);
      if (info.type === null) continue;
      let size = 1;
      if (info.type.kind === "tuple") size = info.type.size;
      else if (info.type.kind === "set") {
        this.report({ code: "type_mismatch", at: element.pos, message: "a set cannot be an element of a set literal (write `1..n`, not `{1..n}`)" });
        continue;
      } else this.expectElement(element, info);
      if (dimension !== 0 && size !== dimension) {
        this.report({ code: "set_dimension", at: element.pos, message: `elements of one set must have the same dimension: ${dimension} before, ${size} here` });
      }
      dimension = dimension || size;
    }
    return { type: { kind: "set", dimension }, degree: 0, minFree };
  }
}

import type { ConstraintDecl, Declaration, Expr, ModelAst, ObjectiveDecl, ParamDecl, SetDecl, VarDecl } from "./ast.js";
import { ExpressionChecker } from "./check-expression.js";
import { describeKind, type Context } from "./check-types.js";
import { problemAt, type JModelProblem } from "./errors.js";

/**
 * The JModel checker: every name declared once and before use, every use of the right kind and
 * arity, exactly one objective, constraints linear, data expressions free of variables. It records
 * what it resolves on the syntax tree (the compiler relies on it) and reports every problem it finds.
 */
export function checkModel(ast: ModelAst): JModelProblem[] {
  return new ModelChecker(ast).run();
}

class ModelChecker extends ExpressionChecker {
  constructor(private readonly ast: ModelAst) {
    super();
    for (const decl of ast.declarations) if (!this.allNames.has(decl.name)) this.allNames.set(decl.name, decl);
    for (const name of ast.brokenNames) this.brokenNames.add(name);
  }

  run(): JModelProblem[] {
    const objectives: ObjectiveDecl[] = [];
    for (const decl of this.ast.declarations) {
      const earlier = this.declared.get(decl.name);
      if (earlier !== undefined) {
        this.report({
          code: "duplicate_declaration",
          at: decl.pos,
          message: `\`${decl.name}\` is already declared as a ${describeKind(earlier)} at line ${earlier.pos.line}`,
          symbol: decl.name,
        });
      }
      this.beginFrame();
      this.checkDeclaration(decl);
      if (decl.kind === "objective") objectives.push(decl);
      // Registered after its own body: a declaration cannot refer to itself.
      if (earlier === undefined) this.declared.set(decl.name, decl);
    }
    if (objectives.length === 0 && !this.ast.brokenObjective) {
      this.problems.push(
        problemAt("semantic", {
          code: "objective_missing",
          at: this.ast.end,
          message: "the model has no objective: add `minimize name: …;` or `maximize name: …;`",
        }),
      );
    }
    for (const extra of objectives.slice(1)) {
      this.report({
        code: "objective_duplicate",
        at: extra.pos,
        message: `a model has exactly one objective; \`${objectives[0]!.name}\` is already declared at line ${objectives[0]!.pos.line}`,
        symbol: extra.name,
      });
    }
    return this.problems.sort((a, b) => a.line - b.line || a.column - b.column);
  }

  private checkDeclaration(decl: Declaration): void {
    switch (decl.kind) {
      case "set":
        return this.checkSetDecl(decl);
      case "param":
        return this.checkParamDecl(decl);
      case "var":
        return this.checkVarDecl(decl);
      case "objective":
        return this.checkObjective(decl);
      case "constraint":
        return this.checkConstraint(decl);
    }
  }

  private checkSetDecl(decl: SetDecl): void {
    const ctx: Context = { maxDegree: 0, where: `the declaration of set \`${decl.name}\`` };
    let dimension = decl.dimen?.value ?? 0;
    for (const [attribute, expr] of [
      ["within", decl.within],
      [":=", decl.definition],
      ["default", decl.defaultValue],
    ] as const) {
      if (expr === null) continue;
      const set = this.checkSet(expr, ctx);
      if (!set.ok || set.dimension === 0) continue;
      if (dimension !== 0 && set.dimension !== dimension) {
        this.report({
          code: "set_dimension",
          at: expr.pos,
          message: `\`${attribute}\` gives a set of dimension ${set.dimension}, but \`${decl.name}\` has dimension ${dimension}`,
          symbol: decl.name,
        });
      } else dimension = set.dimension;
    }
    if (decl.definition !== null && decl.defaultValue !== null) {
      this.report({
        code: "conflicting_attributes",
        at: decl.defaultValue.pos,
        message: `set \`${decl.name}\` is defined with \`:=\`, so a default would never be used`,
        symbol: decl.name,
      });
    }
    decl.dimension = dimension || 1;
    decl.frameSize = this.frameSize;
  }

  private checkParamDecl(decl: ParamDecl): void {
    const indexing = decl.indexing === null ? null : this.openIndexing(decl.indexing);
    decl.arity = indexing?.dimension ?? 0;
    const ctx: Context = { maxDegree: 0, where: `the declaration of parameter \`${decl.name}\`` };
    for (const check of decl.checks) this.checkNumber(check.value, ctx);
    if (decl.definition !== null) this.checkNumber(decl.definition, ctx);
    if (decl.defaultValue !== null) this.checkNumber(decl.defaultValue, ctx);
    if (decl.definition !== null && decl.defaultValue !== null) {
      this.report({
        code: "conflicting_attributes",
        at: decl.defaultValue.pos,
        message: `parameter \`${decl.name}\` is defined with \`:=\`, so a default would never be used`,
        symbol: decl.name,
      });
    }
    if (decl.integer && decl.binary) {
      this.report({
        code: "conflicting_attributes",
        at: decl.pos,
        message: `parameter \`${decl.name}\` cannot be both \`integer\` and \`binary\``,
        symbol: decl.name,
      });
    }
    decl.frameSize = this.frameSize;
  }

  private checkVarDecl(decl: VarDecl): void {
    const indexing = decl.indexing === null ? null : this.openIndexing(decl.indexing);
    decl.arity = indexing?.dimension ?? 0;
    const ctx: Context = { maxDegree: 0, where: `the bounds of variable \`${decl.name}\`` };
    for (const bound of [decl.lower, decl.upper, decl.fixed]) if (bound !== null) this.checkNumber(bound, ctx);
    if (decl.fixed !== null && (decl.lower !== null || decl.upper !== null)) {
      this.report({
        code: "conflicting_attributes",
        at: decl.fixed.pos,
        message: `variable \`${decl.name}\` is fixed with \`==\` and cannot also have \`>=\` or \`<=\` bounds`,
        symbol: decl.name,
      });
    }
    if (decl.integer && decl.binary) {
      this.report({
        code: "conflicting_attributes",
        at: decl.pos,
        message: `variable \`${decl.name}\` cannot be both \`integer\` and \`binary\``,
        symbol: decl.name,
      });
    }
    decl.frameSize = this.frameSize;
  }

  private checkObjective(decl: ObjectiveDecl): void {
    this.checkNumber(decl.expr, { maxDegree: 2, where: "the objective" });
    decl.frameSize = this.frameSize;
  }

  private checkConstraint(decl: ConstraintDecl): void {
    const indexing = decl.indexing === null ? null : this.openIndexing(decl.indexing);
    decl.arity = indexing?.dimension ?? 0;
    const where = `constraint \`${decl.name}\``;
    if (decl.middle === null) {
      this.checkNumber(decl.left, { maxDegree: 1, where });
      this.checkNumber(decl.right, { maxDegree: 1, where });
    } else {
      const bounds: Context = { maxDegree: 0, where: `the bounds of ranged ${where}` };
      this.checkNumber(decl.left, bounds);
      this.checkNumber(decl.middle, { maxDegree: 1, where });
      this.checkNumber(decl.right, bounds);
    }
    decl.frameSize = this.frameSize;
  }

  private checkNumber(expr: Expr, ctx: Context): void {
    this.expectNumber(expr, this.check(expr, ctx));
  }
}

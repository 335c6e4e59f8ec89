/**
 * JModel: Incumbent's small algebraic modelling language. The language is described in docs/jmodel.md.
 *
 *   parseJModel(source)                → syntax tree (throws JModelError on syntax errors)
 *   checkJModel(source)                → every problem found, with positions (never throws for user errors)
 *   compileJModel(source, data, opts)  → { problem, stats } (throws JModelError)
 *   modelSymbols(source)               → declared sets, parameters, variables, constraints, objective
 */
import type { ModelAst } from "./ast.js";
import { checkModel } from "./checker.js";
import { JModelError, type JModelProblem } from "./errors.js";
import { parseWithRecovery } from "./parser.js";

export { compileJModel, type CompileOptions, type CompileResult, type CompileStats } from "./compiler.js";
export { emptyModelNames, modelNamesOf, nameInfeasibility, storedModelNames, type ModelNames, type NameOrigin, type StoredModelNames } from "./names.js";
export { modelSymbols, type ModelSymbols, type SetSymbol, type ParamSymbol, type VariableSymbol, type ConstraintSymbol } from "./symbols.js";
export {
  JModelError,
  isJModelError,
  type JModelErrorKind,
  type JModelErrorCode,
  type JModelProblem,
  type SourcePosition,
} from "./errors.js";
export type { ModelAst, Declaration, Expr } from "./ast.js";

/** The syntax tree of a model; throws JModelError (kind "syntax", every syntax problem in `problems`). */
export function parseJModel(source: string): ModelAst {
  const { ast, problems } = parseWithRecovery(source);
  if (problems.length > 0) throw new JModelError(problems[0]!, problems);
  return ast;
}

/**
 * Every problem of a model that can be found without data (syntax and semantic), in source order.
 * An empty list means the model compiles with any dataset that fits it.
 */
export function checkJModel(source: string): JModelProblem[] {
  const { ast, problems } = parseWithRecovery(source);
  return [...problems, ...checkModel(ast)].sort((a, b) => a.line - b.line || a.column - b.column);
}

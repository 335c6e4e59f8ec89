/**
 * Errors of the JModel language. Every error carries a position (1-based line and column) because the
 * API reports it ("dataset_did_not_compile" with `position`, "model_cannot_be_compared" with
 * `problems`), and a stable `code` so callers can act on a kind of failure without parsing messages.
 */

/** syntax: the text is not JModel; semantic: well-formed but meaningless; data: the dataset does not fit. */
export type JModelErrorKind = "syntax" | "semantic" | "data";

export type JModelErrorCode =
  // syntax
  | "unexpected_character"
  | "unterminated_string"
  | "unterminated_comment"
  | "invalid_number"
  | "unexpected_token"
  // semantic
  | "duplicate_declaration"
  | "undeclared_name"
  | "used_before_declaration"
  | "wrong_symbol_kind"
  | "index_arity"
  | "duplicate_dummy"
  | "dummy_shadows_name"
  | "type_mismatch"
  | "set_dimension"
  | "nonlinear"
  | "objective_missing"
  | "objective_duplicate"
  | "variable_not_allowed"
  | "invalid_exponent"
  | "invalid_element"
  | "conflicting_attributes"
  // data
  | "unknown_data_key"
  | "unknown_override"
  | "defined_in_model"
  | "wrong_type"
  | "missing_value"
  | "not_in_set"
  | "not_in_domain"
  | "duplicate_element"
  | "value_out_of_range"
  | "not_a_number"
  | "division_by_zero"
  | "non_finite"
  | "infeasible_constant_constraint"
  | "inconsistent_bounds"
  | "name_too_long"
  | "no_variables";

/** A position in the model source: 1-based line and column (columns count UTF-16 code units). */
export interface SourcePosition {
  line: number;
  column: number;
}

/** One problem found in a model or dataset: what `checkJModel` returns and what `JModelError` carries. */
export interface JModelProblem extends SourcePosition {
  kind: JModelErrorKind;
  code: JModelErrorCode;
  message: string;
  /** The set, parameter, variable or constraint the problem is about, when there is one. */
  symbol?: string;
}

/**
 * Thrown by `parseJModel`, `compileJModel` and `modelSymbols`. The fields describe the first problem;
 * `problems` lists every problem found in the same pass, this one first (the checker reports all it can
 * find; data binding stops at the first).
 */
export class JModelError extends Error {
  readonly kind: JModelErrorKind;
  readonly code: JModelErrorCode;
  readonly line: number;
  readonly column: number;
  readonly symbol: string | undefined;
  readonly problems: JModelProblem[];

  constructor(problem: JModelProblem, problems: JModelProblem[] = [problem]) {
    super(problem.message);
    this.name = "JModelError";
    this.kind = problem.kind;
    this.code = problem.code;
    this.line = problem.line;
    this.column = problem.column;
    this.symbol = problem.symbol;
    this.problems = problems.length > 0 ? problems : [problem];
  }

  toProblem(): JModelProblem {
    const p: JModelProblem = { kind: this.kind, code: this.code, message: this.message, line: this.line, column: this.column };
    if (this.symbol !== undefined) p.symbol = this.symbol;
    return p;
  }

  override toString(): string {
    return `JModel ${this.kind} error at line ${this.line}, column ${this.column}: ${this.message}`;
  }
}

export function isJModelError(error: unknown): error is JModelError {
  return error instanceof JModelError;
}

/** Where an error that belongs to no place in the source (an unknown dataset key) points: the start. */
export const START_OF_SOURCE: SourcePosition = { line: 1, column: 1 };

export function problemAt(
  kind: JModelErrorKind,
  { code, at, message, symbol }: { code: JModelErrorCode; at: SourcePosition; message: string; symbol?: string },
): JModelProblem {
  const p: JModelProblem = { kind, code, message, line: at.line, column: at.column };
  if (symbol !== undefined) p.symbol = symbol;
  return p;
}

export function syntaxError(code: JModelErrorCode, at: SourcePosition, message: string): JModelError {
  return new JModelError(problemAt("syntax", { code, at, message }));
}

export function dataError({ code, at, message, symbol }: { code: JModelErrorCode; at: SourcePosition; message: string; symbol?: string }): JModelError {
  return new JModelError(problemAt("data", { code, at, message, symbol }));
}

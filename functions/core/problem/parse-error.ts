import { AppError } from "../errors.js";

export type ProblemFileFormat = "mps" | "lp";

/**
 * A problem file that cannot be read: the line (1-based) where reading stopped and what was wrong
 * there. It is an `invalid_problem_file` (422) for the API, with `line` and `format` in the body, so
 * import preview can point the user at the offending line.
 */
export class ProblemParseError extends AppError {
  constructor(
    readonly format: ProblemFileFormat,
    readonly line: number,
    /** What was wrong, without the location (the message adds it). */
    readonly reason: string,
  ) {
    super("invalid_problem_file", `${format.toUpperCase()} line ${line}: ${reason}`, { line, format });
    this.name = "ProblemParseError";
  }
}

export function isProblemParseError(error: unknown): error is ProblemParseError {
  return error instanceof ProblemParseError;
}

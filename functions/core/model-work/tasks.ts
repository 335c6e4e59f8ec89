import { AppError, TriggerInputError, ValidationError, type ErrorName, type TriggerFireCode, type ValidationIssue } from "../errors.js";
import { compileJModel, isJModelError, JModelError, type JModelProblem, modelSymbols, storedModelNames } from "../jmodel/index.js";
import { ModelCapExceeded, type CapName, type ModelCaps } from "../limits/model-caps.js";
import { type Compression, withoutCompressionSuffix } from "../problem/compressed.js";
import { detectFormat, readProblemFile } from "../problem/index.js";
import { numericsOf } from "../problem/numerics.js";
import { ProblemParseError, type ProblemFileFormat } from "../problem/parse-error.js";
import { type Problem, ProblemSchema, problemStats } from "../problem/schema.js";
import { type SerializedProblem, serializeProblem } from "../problem/serialized.js";
import type { SolverChoice } from "../solvers/types.js";
import { resolveRunInput, SOLVER_OVERRIDE, type SolverChain } from "../triggers/overrides.js";

/**
 * The work that builds a problem from what a caller sent — a JModel compile, a problem file read for a
 * preview — as plain functions of plain messages, so the same code runs on the thread that asks (a
 * worker process, a Lambda) or in the API's model thread (thread.ts), away from the event loop that
 * answers /health. Results are bytes (moved between threads without a copy); errors travel as data
 * and are revived as the same classes on the other side.
 */
export type ModelTask =
  | {
      kind: "compile";
      source: string;
      data: unknown;
      overrides: Record<string, unknown>;
      name: string;
      caps: ModelCaps;
    }
  | {
      /**
       * A builder document's version run with a caller's overrides (POST /models/{id}/execute): the
       * stored model's JSON as it was saved, read here and not on the event loop; the overrides checked
       * against the model's data-given names with the trigger rules, then the model compiled.
       */
      kind: "run_document";
      modelJson: string;
      sent: Record<string, unknown>;
      solvers: { version: SolverChoice; chosen: SolverChoice | null; available: string[] };
      name: string;
      caps: ModelCaps;
    }
  | ({
      /** "preview": the problem, its stats and numerics as a response body; "read": the problem as a compile's, serialized (a recommendation for a file). */
      kind: "preview" | "read";
    } & FileToRead);

/** A problem file sent by a caller, to read within the caps. */
export interface FileToRead {
  text: string;
  format: ProblemFileFormat | "auto";
  /** As uploaded (`afiro.mps.gz`); read without its compression suffix. */
  filename: string | null;
  compression: Compression | null;
  caps: ModelCaps;
}

export type ModelTaskResult =
  | { kind: "compiled"; problem: SerializedProblem; names: Uint8Array | null; solver: SolverChoice | null }
  | { kind: "preview"; body: Uint8Array };

type DocumentModel = { kind: "jmodel"; source: string; data?: unknown } | { kind: "problem"; problem: unknown };

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/** Runs one task where it is called. Throws the domain's errors (JModelError, ModelCapExceeded, AppError, …). */
export function runModelTask(task: ModelTask): ModelTaskResult {
  switch (task.kind) {
    case "compile": {
      const compiled = compileJModel(task.source, task.data, { overrides: task.overrides, name: task.name, caps: task.caps });
      return { kind: "compiled", problem: serializeProblem(compiled.problem), names: encode(storedModelNames(compiled.names)), solver: null };
    }
    case "run_document":
      return runDocument(task);
    case "read":
      return { kind: "compiled", problem: serializeProblem(readFile(task).problem), names: null, solver: null };
    case "preview": {
      const { problem, format } = readFile(task);
      const preview = {
        problem,
        stats: problemStats(problem),
        numerics: numericsOf(problem),
        format,
        filename: task.filename,
        compression: task.compression,
      };
      return { kind: "preview", body: encode(preview) };
    }
  }
}

/** A problem file read within the caps and checked as a problem, with the format it was read as. */
function readFile(task: FileToRead): { problem: Problem; format: ProblemFileFormat } {
  const readAs = task.filename === null ? undefined : withoutCompressionSuffix(task.filename);
  const read = readProblemFile(task.text, { format: task.format, filename: readAs, caps: task.caps });
  const checked = ProblemSchema.safeParse(read);
  if (!checked.success) throw new AppError("invalid_problem_file", `The file reads, but not as a valid problem: ${checked.error.issues[0]?.message}`);
  return { problem: checked.data, format: task.format !== "auto" ? task.format : detectFormat(task.text, readAs) };
}

function runDocument(task: Extract<ModelTask, { kind: "run_document" }>): ModelTaskResult {
  const model = JSON.parse(task.modelJson) as DocumentModel;
  let overridable: string[] = [];
  if (model.kind === "jmodel") {
    try {
      overridable = modelSymbols(model.source).overridable;
    } catch (error) {
      if (!isJModelError(error)) throw error;
    }
  }
  const fields = [
    ...overridable.map((name) => ({ name, type: "any" as const, required: false })),
    { name: SOLVER_OVERRIDE, type: "string" as const, required: false },
  ];
  const chain: SolverChain = { version: task.solvers.version, chosen: task.solvers.chosen, available: new Set(task.solvers.available) };
  const resolved = resolveRunInput(fields, task.sent, chain);
  // A stored problem was validated when it was saved; it runs as it is.
  if (model.kind === "problem") return { kind: "compiled", problem: serializeProblem(model.problem as Problem), names: null, solver: resolved.solver };
  const compiled = compileJModel(model.source, model.data, { overrides: resolved.modelOverrides, name: task.name, caps: task.caps });
  return { kind: "compiled", problem: serializeProblem(compiled.problem), names: encode(storedModelNames(compiled.names)), solver: resolved.solver };
}

// ------------------------------------------------------------ errors as data

export type TaskError =
  | { type: "jmodel"; problems: JModelProblem[] }
  | { type: "cap"; cap: CapName; limit: number; count: number; where: string | null }
  | { type: "parse"; format: ProblemFileFormat; line: number; reason: string }
  | { type: "trigger_input"; fireCode: TriggerFireCode; message: string; params: Record<string, unknown> }
  | { type: "validation"; issues: ValidationIssue[] }
  | { type: "app"; code: ErrorName; detail: string; extra: Record<string, unknown> }
  | { type: "internal"; message: string };

export function taskErrorOf(error: unknown): TaskError {
  if (isJModelError(error)) return { type: "jmodel", problems: error.problems };
  if (error instanceof ModelCapExceeded) return { type: "cap", cap: error.cap, limit: error.limit, count: error.count, where: error.where };
  if (error instanceof ProblemParseError) return { type: "parse", format: error.format, line: error.line, reason: error.reason };
  if (error instanceof TriggerInputError) return { type: "trigger_input", fireCode: error.fireCode, message: error.detail, params: error.params };
  if (error instanceof ValidationError) return { type: "validation", issues: error.issues };
  if (error instanceof AppError) return { type: "app", code: error.code, detail: error.detail, extra: { ...error.extra } };
  return { type: "internal", message: error instanceof Error ? error.message : String(error) };
}

export function reviveTaskError(error: TaskError): Error {
  switch (error.type) {
    case "jmodel":
      return new JModelError(error.problems[0]!, error.problems);
    case "cap":
      return new ModelCapExceeded(error.cap, { limit: error.limit, count: error.count, where: error.where });
    case "parse":
      return new ProblemParseError(error.format, error.line, error.reason);
    case "trigger_input":
      return new TriggerInputError(error.fireCode, { message: error.message, params: error.params });
    case "validation":
      return new ValidationError(error.issues);
    case "app":
      return new AppError(error.code, error.detail, error.extra as never);
    case "internal":
      return new Error(`model thread: ${error.message}`);
  }
}

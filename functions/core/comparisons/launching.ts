import type { Services } from "../services.js";
import type { Role } from "../auth/roles.js";
import { type Clock, isoTime } from "../clock.js";
import { AppError } from "../errors.js";
import { blobKeys } from "../blob/keys.js";
import type { JModelProblem } from "../jmodel/index.js";
import { capRefusal, isModelCapExceeded, modelCaps } from "../limits/model-caps.js";
import type { Problem, ProblemClass, ProblemStats } from "../problem/schema.js";
import type { SerializedProblem } from "../problem/serialized.js";
import { enqueueOrFail } from "../queue/enqueue-or-fail.js";
import type { FairShare } from "../queue/fair-share.js";
import type { SettingsRequest } from "../solvers/settings.js";
import type { Row } from "./schemas.js";
import { shapeRows } from "./rows.js";
import { changedRows, type ComparisonRecord, type ComparisonStore } from "./store.js";

/**
 * The steps a single comparison and a matrix launch share: compiling a JModel model within the caps,
 * admitting the rows, and sending each comparison's job.
 */
export type ComparisonLaunchDeps = Pick<Services, "config" | "clock" | "comparisonStore" | "inventory" | "admission" | "fairShare" | "modelWork">;

const runnable = (rows: Row[]) => rows.filter((r) => r.solver_status !== "unsupported").length;

function noSolverCanRun(rows: Row[], cls: ProblemClass): AppError {
  const reasons = Object.fromEntries(rows.map((r) => [r.solver_name, r.unsupported_reason!]));
  return new AppError(
    "no_solver_can_run_this_model",
    `None of the named solvers can run this ${cls} model: ${rows.map((r) => `${r.solver_name} (${r.unsupported_reason})`).join(", ")}.`,
    { reasons },
  );
}

/** The first compile problems, as an error's details name them. */
export const problemsOf = (problems: JModelProblem[]) =>
  problems.slice(0, 3).map((p) => ({ line: p.line, column: p.column, message: p.message, code: p.code, kind: p.kind }));

/** A JModel model compiled by the model work (off the event loop where there is a model thread), within the size caps. */
export async function compileForComparison(
  deps: Pick<ComparisonLaunchDeps, "modelWork" | "config">,
  source: string,
  data: unknown,
): Promise<{ problem: SerializedProblem; names: Uint8Array }> {
  const built = await deps.modelWork
    .run({ kind: "compile", source, data, overrides: {}, name: "jmodel", caps: modelCaps(deps.config) })
    .catch((error: unknown) => {
      throw isModelCapExceeded(error) ? capRefusal(error) : error;
    });
  if (built.kind !== "compiled" || built.names === null) throw new Error("internal: compile answered without a problem");
  return { problem: built.problem, names: built.names };
}

/** What admitting a comparison's rows (or a matrix's) needs. */
export interface RowsToAdmit {
  orgId: string;
  userId: string;
  problem: Problem | SerializedProblem;
  solverNames: string[];
  settings: SettingsRequest | undefined;
  /** How many comparisons run these rows: 1, or a matrix's datasets. */
  copies: number;
  /** `cmp`: a single comparison (its problem is kept under its id); `cmb`: a matrix. */
  idPrefix: "cmp" | "cmb";
  priority: { value: number; role: Role };
}

/**
 * Admits `copies` × the solvers that can express the problem (one comparison, or a matrix's rows):
 * the rows are shaped from the problem's class; when no named solver can run it, 422 before anything
 * is charged.
 */
export function admitComparisonRows(deps: Pick<ComparisonLaunchDeps, "admission" | "inventory" | "clock">, request: RowsToAdmit) {
  const { orgId, idPrefix, solverNames, copies } = request;
  return deps.admission.admit({
    orgId,
    userId: request.userId,
    problem: request.problem,
    settings: request.settings,
    priority: request.priority,
    idPrefix,
    problemKey: idPrefix === "cmp" ? (id) => blobKeys.comparisonProblem(orgId, id) : undefined,
    plan: async (stats: ProblemStats) => {
      const rows = shapeRows(solverNames, stats.problem_class, await deps.inventory.available(deps.clock.now()));
      if (runnable(rows) === 0) throw noSolverCanRun(rows, stats.problem_class);
      return { rows, solves: runnable(rows) * copies };
    },
  });
}

/** Sends a recorded comparison's job; a broker refusal fails the comparison and its pending rows, and is thrown on (503 enqueue_failed). */
export function enqueueComparison(
  deps: { fairShare: Pick<FairShare, "dispatch">; comparisonStore: Pick<ComparisonStore, "finalizeUnheld">; clock: Clock },
  record: ComparisonRecord,
): Promise<void> {
  const job = { type: "comparison" as const, id: record.id, org_id: record.org_id, priority: record.priority ?? 0 };
  return enqueueOrFail(deps.fairShare, job, (reason) =>
    deps.comparisonStore.finalizeUnheld(record.org_id, {
      id: record.id,
      from: ["pending"],
      status: "failed",
      fields: { error_message: reason, completed_at: isoTime(deps.clock.now()) },
      rows: changedRows(record.results, (r) => (r.status === "pending" ? { ...r, status: "failed", error_message: "the job broker refused the job" } : null)),
    }),
  );
}

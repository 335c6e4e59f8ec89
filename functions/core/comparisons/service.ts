import type { Services } from "../services.js";
import type { Role } from "../auth/roles.js";
import type { Principal } from "../auth/service.js";
import { storePayload, storePayloadBytes } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { AppError, notFound } from "../errors.js";
import { newId } from "../ids.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import { checkJModel, isJModelError, type JModelProblem } from "../jmodel/index.js";
import { capRefusal, isModelCapExceeded, modelCaps } from "../limits/model-caps.js";
import type { ResolvedModel } from "../projects/service.js";
import { numericsOfAny } from "../problem/serialized.js";
import type { Problem, ProblemClass, ProblemStats } from "../problem/schema.js";
import type { SerializedProblem } from "../problem/serialized.js";
import type { SettingsRequest } from "../solvers/settings.js";
import type { CompareRequest, ComparisonDetail, MatrixDetail, MatrixRequest, Row } from "./schemas.js";
import { changedRows, type ComparisonRecord, type MatrixRecord } from "./store.js";
import { shapeRows } from "./rows.js";
import { deriveMatrixStatus, detailOf } from "./views.js";

const runnable = (rows: Row[]) => rows.filter((r) => r.solver_status !== "unsupported").length;

function noSolverCanRun(rows: Row[], cls: ProblemClass): AppError {
  const reasons = Object.fromEntries(rows.map((r) => [r.solver_name, r.unsupported_reason!]));
  return new AppError(
    "no_solver_can_run_this_model",
    `None of the named solvers can run this ${cls} model: ${rows.map((r) => `${r.solver_name} (${r.unsupported_reason})`).join(", ")}.`,
    { reasons },
  );
}

const problemsOf = (problems: JModelProblem[]) =>
  problems.slice(0, 3).map((p) => ({ line: p.line, column: p.column, message: p.message, code: p.code, kind: p.kind }));

/**
 * Solver comparison: one problem, several solvers, identical settings, one worker running the rows in
 * order; and the matrix, one such comparison per dataset. Launch does every check that can fail
 * before anything is charged or stored, then charges, stores and enqueues.
 */
export class ComparisonService {
  constructor(
    private readonly deps: Pick<
      Services,
      "config" | "clock" | "comparisonStore" | "projects" | "blobs" | "inventory" | "admission" | "fairShare" | "modelWork"
    >,
  ) {}

  /** A JModel model compiled by the model work (off the event loop where there is a model thread), within the size caps. */
  private async compile(source: string, data: unknown): Promise<{ problem: SerializedProblem; names: Uint8Array }> {
    const built = await this.deps.modelWork
      .run({ kind: "compile", source, data, overrides: {}, name: "jmodel", caps: modelCaps(this.deps.config) })
      .catch((error: unknown) => {
        throw isModelCapExceeded(error) ? capRefusal(error) : error;
      });
    if (built.kind !== "compiled" || built.names === null) throw new Error("internal: compile answered without a problem");
    return { problem: built.problem, names: built.names };
  }

  /**
   * Admits `copies` × the solvers that can express the problem (one comparison, or a matrix's rows):
   * the rows are shaped from the problem's class; when no named solver can run it, 422 before anything
   * is charged.
   */
  private admitRows(
    orgId: string,
    userId: string,
    problem: Problem | SerializedProblem,
    solverNames: string[],
    settings: SettingsRequest | undefined,
    copies: number,
    idPrefix: "cmp" | "cmb",
    priority: { value: number; role: Role },
  ) {
    return this.deps.admission.admit({
      orgId,
      userId,
      problem,
      settings,
      priority,
      idPrefix,
      problemKey: idPrefix === "cmp" ? (id) => blobKeys.comparisonProblem(orgId, id) : undefined,
      plan: async (stats: ProblemStats) => {
        const rows = shapeRows(solverNames, stats.problem_class, await this.deps.inventory.available(this.deps.clock.now()));
        if (runnable(rows) === 0) throw noSolverCanRun(rows, stats.problem_class);
        return { rows, solves: runnable(rows) * copies };
      },
    });
  }

  /**
   * The problem a single comparison on a project runs: its source compiled with the default data (with
   * the generated names' families and indices), or its stored problem.
   */
  private async problemOfProject(resolved: ResolvedModel): Promise<{ problem: Problem | SerializedProblem; names: Uint8Array | null }> {
    const { content } = resolved;
    if (content.jmodel_source !== null) {
      const staticProblems = checkJModel(content.jmodel_source);
      if (staticProblems.length > 0) throw this.cannotCompare(staticProblems);
      try {
        return await this.compile(content.jmodel_source, content.default_data ?? {});
      } catch (error) {
        if (isJModelError(error)) throw this.cannotCompare(error.problems);
        throw error;
      }
    }
    const problem = await this.deps.projects.problemOf(content);
    if (!problem) {
      throw new AppError("model_cannot_be_compared", "The project has no model: neither JModel source nor a problem.", {
        problems: [{ line: null, column: null, message: "the project's model is empty", code: "empty_model", kind: "semantic" }],
      });
    }
    return { problem, names: null };
  }

  private cannotCompare(problems: JModelProblem[]): AppError {
    return new AppError(
      "model_cannot_be_compared",
      `The stored model is not a solvable problem: ${problems[0]!.message} (line ${problems[0]!.line}, column ${problems[0]!.column}).`,
      {
        problems: problemsOf(problems),
      },
    );
  }

  async launch(principal: Principal, request: CompareRequest): Promise<ComparisonDetail> {
    const resolved = request.project_id ? await this.deps.projects.resolve(principal, request.project_id, request.version_id) : null;
    const { problem, names } = resolved ? await this.problemOfProject(resolved) : { problem: request.problem!, names: null };
    const admitted = await this.admitRows(principal.orgId, principal.userId, problem, request.solver_names, request.settings, 1, "cmp", {
      value: request.priority,
      role: principal.role,
    });
    const { id, stats, settings, creditsEach } = admitted;
    const record: ComparisonRecord = {
      id,
      org_id: principal.orgId,
      created_by: principal.userId,
      status: "pending",
      problem_name: resolved ? resolved.project.name : problem.name,
      batch_id: null,
      source_kind: resolved ? "model_project" : "inline_problem",
      model_project_id: resolved?.project.id ?? null,
      model_project_version_id: resolved?.version?.id ?? null,
      dataset_id: null,
      uploaded_filename: request.uploaded_filename ?? null,
      settings,
      problem_class: stats.problem_class,
      variable_count: stats.variable_count,
      constraint_count: stats.constraint_count,
      machine_note: null,
      solver_names: request.solver_names,
      results: admitted.plan.rows,
      agreement: null,
      error_message: null,
      created_at: isoTime(this.deps.clock.now()),
      started_at: null,
      completed_at: null,
      problem: admitted.problem,
      model: null,
      credits_each: creditsEach,
      cancel_requested: false,
      priority: request.priority,
      numerics: numericsOfAny(problem),
    };
    if (names)
      record.model_names = await storeModelNames(
        this.deps.blobs,
        blobKeys.comparisonModelNames(principal.orgId, id),
        names,
        this.deps.config.inlinePayloadMaxBytes,
      );
    await this.deps.comparisonStore.create(record);
    await this.enqueue(record);
    return detailOf(record);
  }

  /** Sends the job; a broker refusal is recorded on the comparison and answered 503 enqueue_failed. */
  private async enqueue(record: ComparisonRecord): Promise<void> {
    try {
      await this.deps.fairShare.dispatch({ type: "comparison", id: record.id, org_id: record.org_id, priority: record.priority ?? 0 });
    } catch (error) {
      await this.deps.comparisonStore.end(
        record.org_id,
        record.id,
        ["pending"],
        "failed",
        { error_message: `enqueue_failed: ${(error as Error).message}`, completed_at: isoTime(this.deps.clock.now()) },
        changedRows(record.results, (r) => (r.status === "pending" ? { ...r, status: "failed", error_message: "the job broker refused the job" } : null)),
      );
      throw error;
    }
  }

  async get(principal: Principal, id: string): Promise<ComparisonDetail> {
    const record = await this.deps.comparisonStore.get(principal.orgId, id);
    if (!record) throw notFound("Comparison");
    return detailOf(record);
  }

  async list(principal: Principal, limit: number, offset: number) {
    const { items, total } = await this.deps.comparisonStore.list(principal.orgId, limit, offset);
    return {
      comparisons: items.map((c) => ({
        id: c.id,
        status: c.status,
        problem_name: c.problem_name,
        solver_names: c.solver_names,
        batch_id: c.batch_id ?? null,
        created_at: c.created_at,
        completed_at: c.completed_at ?? null,
      })),
      total,
    };
  }

  async cancel(principal: Principal, id: string): Promise<ComparisonDetail> {
    const record = await this.deps.comparisonStore.cancel(principal.orgId, id, this.deps.clock.now());
    if (!record) throw notFound("Comparison");
    return detailOf(record);
  }

  // Matrix --------------------------------------------------------------------------------------

  async launchMatrix(principal: Principal, request: MatrixRequest): Promise<MatrixDetail> {
    const { config, clock } = this.deps;
    const resolved = await this.deps.projects.resolve(principal, request.project_id, request.version_id);
    const source = resolved.content.jmodel_source;
    if (source === null) {
      throw new AppError(
        "project_has_no_jmodel_source",
        "A matrix compiles the project's JModel source with each dataset; this project has none (a flat or imported model cannot be used).",
      );
    }
    const datasets = await Promise.all(request.dataset_ids.map((d) => this.deps.projects.getDataset(principal, request.project_id, d)));
    const datas = await Promise.all(datasets.map((d) => this.deps.projects.datasetData(d)));

    // Only the first dataset is compiled here: to learn whether the model solves, which solvers can
    // express it, and so the quota cost. The other rows are compiled by their own workers.
    let first: SerializedProblem;
    let firstNames: Uint8Array;
    try {
      ({ problem: first, names: firstNames } = await this.compile(source, datas[0]!));
    } catch (error) {
      if (!isJModelError(error)) throw error;
      throw new AppError("dataset_did_not_compile", `Dataset ${datasets[0]!.name} did not compile: ${error.message}`, {
        dataset_id: datasets[0]!.id,
        position: { line: error.line, column: error.column },
        problems: problemsOf(error.problems),
      });
    }
    const admitted = await this.admitRows(principal.orgId, principal.userId, first, request.solver_names, request.settings, datasets.length, "cmb", {
      value: request.priority,
      role: principal.role,
    });
    const { stats, settings, creditsEach } = admitted;
    const shaped = admitted.plan.rows;
    const quotaCost = admitted.plan.solves;
    const now = clock.now();
    const batchId = admitted.id;
    const records: ComparisonRecord[] = [];
    for (let i = 0; i < datasets.length; i++) {
      const id = newId("cmp", now);
      const isFirst = i === 0;
      records.push({
        id,
        org_id: principal.orgId,
        created_by: principal.userId,
        status: "pending",
        problem_name: `${resolved.project.name} × ${datasets[i]!.name}`,
        batch_id: batchId,
        source_kind: "model_project",
        model_project_id: resolved.project.id,
        model_project_version_id: resolved.version?.id ?? null,
        dataset_id: datasets[i]!.id,
        uploaded_filename: null,
        settings,
        problem_class: isFirst ? stats.problem_class : null,
        variable_count: isFirst ? stats.variable_count : null,
        constraint_count: isFirst ? stats.constraint_count : null,
        machine_note: null,
        solver_names: request.solver_names,
        results: shaped.map((r) => ({ ...r })),
        agreement: null,
        error_message: null,
        created_at: isoTime(now),
        started_at: null,
        completed_at: null,
        problem: isFirst
          ? await storePayloadBytes(this.deps.blobs, blobKeys.comparisonProblem(principal.orgId, id), first.json, config.inlinePayloadMaxBytes)
          : null,
        // The first row is compiled here; the others' workers keep their own names as they compile.
        ...(isFirst
          ? {
              model_names: await storeModelNames(this.deps.blobs, blobKeys.comparisonModelNames(principal.orgId, id), firstNames, config.inlinePayloadMaxBytes),
            }
          : {}),
        // The source is frozen with the row, so editing the draft later cannot change a running matrix.
        model: await storePayload(
          this.deps.blobs,
          blobKeys.comparisonModel(principal.orgId, id),
          { jmodel_source: source, data: datas[i] },
          config.inlinePayloadMaxBytes,
        ),
        credits_each: creditsEach,
        cancel_requested: false,
        priority: request.priority,
        // The first row is compiled here; the others' workers give theirs as they compile.
        numerics: isFirst ? numericsOfAny(first) : null,
      });
    }
    const matrix: MatrixRecord = {
      id: batchId,
      org_id: principal.orgId,
      created_by: principal.userId,
      project_id: resolved.project.id,
      project_name: resolved.project.name,
      model_project_version_id: resolved.version?.id ?? null,
      settings,
      solver_names: request.solver_names,
      machine_note: null,
      quota_cost: quotaCost,
      rows: records.map((r, i) => ({ comparison_id: r.id, dataset_id: datasets[i]!.id, dataset_name: datasets[i]!.name })),
      created_at: isoTime(now),
    };
    await this.deps.comparisonStore.createMatrix(matrix);
    for (const r of records) await this.deps.comparisonStore.create(r);
    let refused: unknown = null;
    for (const r of records) {
      try {
        await this.enqueue(r);
      } catch (error) {
        refused = error;
      }
    }
    if (refused) throw refused;
    return this.matrixDetail(matrix, records);
  }

  async getMatrix(principal: Principal, batchId: string): Promise<MatrixDetail> {
    const matrix = await this.deps.comparisonStore.getMatrix(principal.orgId, batchId);
    if (!matrix) throw notFound("Matrix");
    return this.matrixDetail(
      matrix,
      await this.deps.comparisonStore.getMany(
        principal.orgId,
        matrix.rows.map((r) => r.comparison_id),
      ),
    );
  }

  async listMatrices(principal: Principal, projectId: string | undefined, limit: number, offset: number) {
    const all = await this.deps.comparisonStore.listMatrices(principal.orgId, projectId);
    const page = all.slice(offset, offset + limit);
    const batches = await Promise.all(
      page.map(async (m) => {
        const detail = await this.matrixDetail(
          m,
          await this.deps.comparisonStore.getMany(
            principal.orgId,
            m.rows.map((r) => r.comparison_id),
          ),
        );
        return {
          batch_id: m.id,
          status: detail.status,
          project_id: m.project_id,
          project_name: m.project_name,
          dataset_count: m.rows.length,
          solver_names: m.solver_names,
          created_at: m.created_at,
          completed_at: detail.completed_at,
        };
      }),
    );
    return { batches, total: all.length };
  }

  async cancelMatrix(principal: Principal, batchId: string): Promise<MatrixDetail> {
    const matrix = await this.deps.comparisonStore.getMatrix(principal.orgId, batchId);
    if (!matrix) throw notFound("Matrix");
    for (const row of matrix.rows) await this.deps.comparisonStore.cancel(principal.orgId, row.comparison_id, this.deps.clock.now());
    return this.getMatrix(principal, batchId);
  }

  private async matrixDetail(matrix: MatrixRecord, comparisons: ComparisonRecord[]): Promise<MatrixDetail> {
    const byId = new Map(comparisons.map((c) => [c.id, c]));
    const rows = matrix.rows.map((r) => {
      const c = byId.get(r.comparison_id);
      return {
        comparison_id: r.comparison_id,
        dataset_id: r.dataset_id,
        dataset_name: r.dataset_name,
        status: c?.status ?? "failed",
        problem_class: c?.problem_class ?? null,
        variable_count: c?.variable_count ?? null,
        constraint_count: c?.constraint_count ?? null,
        error_message: c ? c.error_message : "the row's comparison is missing",
        results: c?.results ?? [],
        numerics: c?.numerics ?? null,
      };
    });
    const status = deriveMatrixStatus(rows.map((r) => r.status));
    const done = status === "completed" || status === "failed" || status === "cancelled";
    const completedAt = done
      ? rows.map((r) => byId.get(r.comparison_id)?.completed_at ?? null).reduce<string | null>((a, b) => (b && (!a || b > a) ? b : a), null)
      : null;
    return {
      batch_id: matrix.id,
      status,
      project_id: matrix.project_id,
      project_name: matrix.project_name,
      model_project_version_id: matrix.model_project_version_id,
      settings: matrix.settings,
      solver_names: matrix.solver_names,
      machine_note: comparisons.find((c) => c.machine_note)?.machine_note ?? matrix.machine_note,
      quota_cost: matrix.quota_cost,
      rows,
      created_at: matrix.created_at,
      completed_at: completedAt,
    };
  }
}

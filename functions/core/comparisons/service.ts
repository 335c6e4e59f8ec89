import type { Services } from "../services.js";
import type { Principal } from "../auth/service.js";
import { AppError, notFound } from "../errors.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import { checkJModel, isJModelError, type JModelProblem } from "../jmodel/index.js";
import type { ResolvedModel } from "../projects/service.js";
import { numericsOfAny, structureCountsOfAny } from "../problem/serialized.js";
import type { Problem } from "../problem/schema.js";
import type { SerializedProblem } from "../problem/serialized.js";
import type { CompareRequest, ComparisonDetail } from "./schemas.js";
import { admitComparisonRows, compileForComparison, enqueueComparison, problemsOf } from "./launching.js";
import { newComparisonRecord } from "./records.js";
import { detailOf } from "./views.js";

/**
 * Solver comparison: one problem, several solvers, identical settings, one worker running the rows in
 * order (a matrix, one such comparison per dataset, is matrices/service.ts). Launch does every check
 * that can fail before anything is charged or stored, then charges, stores and enqueues.
 */
export class ComparisonService {
  constructor(
    private readonly deps: Pick<
      Services,
      "config" | "clock" | "comparisonStore" | "projects" | "blobs" | "inventory" | "admission" | "fairShare" | "modelWork"
    >,
  ) {}

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
        return await compileForComparison(this.deps, content.jmodel_source, content.default_data ?? {});
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
    const admitted = await admitComparisonRows(this.deps, {
      orgId: principal.orgId,
      userId: principal.userId,
      problem,
      solverNames: request.solver_names,
      settings: request.settings,
      copies: 1,
      idPrefix: "cmp",
      priority: { value: request.priority, role: principal.role },
    });
    const { id, stats } = admitted;
    const record = newComparisonRecord({
      id,
      orgId: principal.orgId,
      createdBy: principal.userId,
      problemName: resolved ? resolved.project.name : problem.name,
      project: resolved ? { id: resolved.project.id, versionId: resolved.version?.id ?? null } : undefined,
      uploadedFilename: request.uploaded_filename,
      settings: admitted.settings,
      stats,
      solverNames: request.solver_names,
      rows: admitted.plan.rows,
      problem: admitted.problem,
      creditsEach: admitted.creditsEach,
      priority: request.priority,
      numerics: numericsOfAny(problem),
      structure: structureCountsOfAny(problem),
      nowMs: this.deps.clock.now(),
    });
    if (names)
      record.model_names = await storeModelNames(this.deps.blobs, blobKeys.comparisonModelNames(principal.orgId, id), {
        names,
        inlinePayloadMaxBytes: this.deps.config.inlinePayloadMaxBytes,
      });
    await this.deps.comparisonStore.create(record);
    await enqueueComparison(this.deps, record);
    return detailOf(record);
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
}

import type { Services } from "../services.js";
import type { Principal } from "../auth/service.js";
import { storePayload, storePayloadBytes } from "../blob/blob-store.js";
import { blobKeys } from "../blob/keys.js";
import { storeModelNames } from "../blob/model-names.js";
import { admitComparisonRows, compileForComparison, enqueueComparison, problemsOf } from "../comparisons/launching.js";
import { newComparisonRecord } from "../comparisons/records.js";
import type { MatrixDetail, MatrixRequest } from "../comparisons/schemas.js";
import type { ComparisonRecord } from "../comparisons/store.js";
import { AppError, notFound } from "../errors.js";
import { newId } from "../ids.js";
import { isJModelError } from "../jmodel/index.js";
import { numericsOfAny, type SerializedProblem } from "../problem/serialized.js";
import type { ResolvedModel } from "../projects/service.js";
import type { DatasetRecord } from "../projects/store.js";
import { newMatrixRecord } from "./records.js";
import type { MatrixRecord } from "./store.js";
import { matrixDetailOf } from "./views.js";

/** A matrix's model and datasets, read before anything is charged. */
interface MatrixInput {
  resolved: ResolvedModel;
  source: string;
  datasets: DatasetRecord[];
  datas: Record<string, unknown>[];
}

/** The first dataset compiled at launch. */
interface FirstRow {
  problem: SerializedProblem;
  names: Uint8Array;
}

type Admitted = Awaited<ReturnType<typeof admitComparisonRows>>;

/**
 * The matrix: one project's JModel source, one comparison per dataset (each a comparisons/ record with
 * the matrix's `batch_id`). Launch reads and compiles the first dataset and admits every row before
 * anything is stored; then stores the matrix and its rows and sends each row's job.
 */
export class MatrixService {
  constructor(
    private readonly deps: Pick<
      Services,
      "config" | "clock" | "comparisonStore" | "matrixStore" | "projects" | "blobs" | "inventory" | "admission" | "fairShare" | "modelWork"
    >,
  ) {}

  async launch(principal: Principal, request: MatrixRequest): Promise<MatrixDetail> {
    const input = await this.readInput(principal, request);
    const first = await this.compileFirst(input);
    const admitted = await admitComparisonRows(this.deps, {
      orgId: principal.orgId,
      userId: principal.userId,
      problem: first.problem,
      solverNames: request.solver_names,
      settings: request.settings,
      copies: input.datasets.length,
      idPrefix: "cmb",
      priority: { value: request.priority, role: principal.role },
    });
    const nowMs = this.deps.clock.now();
    const records = await this.rowRecords(principal, { request, input, first, admitted, nowMs });
    const matrix = newMatrixRecord({
      id: admitted.id,
      orgId: principal.orgId,
      createdBy: principal.userId,
      project: { id: input.resolved.project.id, name: input.resolved.project.name, versionId: input.resolved.version?.id ?? null },
      settings: admitted.settings,
      solverNames: request.solver_names,
      quotaCost: admitted.plan.solves,
      rows: records.map((r, i) => ({ comparisonId: r.id, datasetId: input.datasets[i]!.id, datasetName: input.datasets[i]!.name })),
      nowMs,
    });
    // The comparisons exist before the matrix names them: a reader never sees a row whose comparison is
    // missing (matrixDetailOf would call it failed) or follows its comparison_id to nothing.
    for (const r of records) await this.deps.comparisonStore.create(r);
    await this.deps.matrixStore.create(matrix);
    await this.enqueueRows(records);
    return matrixDetailOf(matrix, records);
  }

  /** The project's JModel source (a matrix needs one) and each named dataset with its data. */
  private async readInput(principal: Principal, request: MatrixRequest): Promise<MatrixInput> {
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
    return { resolved, source, datasets, datas };
  }

  /**
   * Only the first dataset is compiled at launch: to learn whether the model solves, which solvers can
   * express it, and so the quota cost. The other rows are compiled by their own workers.
   */
  private async compileFirst(input: MatrixInput): Promise<FirstRow> {
    const dataset = input.datasets[0]!;
    try {
      return await compileForComparison(this.deps, input.source, input.datas[0]!);
    } catch (error) {
      if (!isJModelError(error)) throw error;
      throw new AppError("dataset_did_not_compile", `Dataset ${dataset.name} did not compile: ${error.message}`, {
        dataset_id: dataset.id,
        position: { line: error.line, column: error.column },
        problems: problemsOf(error.problems),
      });
    }
  }

  /**
   * One comparison per dataset, each with the model and its dataset frozen with it (editing the draft
   * later cannot change a running matrix). The first row carries what its compile at launch learned
   * (problem, names, stats, numerics); the others' workers fill theirs in as they compile.
   */
  private async rowRecords(
    principal: Principal,
    { request, input, first, admitted, nowMs }: { request: MatrixRequest; input: MatrixInput; first: FirstRow; admitted: Admitted; nowMs: number },
  ): Promise<ComparisonRecord[]> {
    const { blobs, config } = this.deps;
    const orgId = principal.orgId;
    const { resolved, datasets, datas, source } = input;
    const records: ComparisonRecord[] = [];
    for (const [i, dataset] of datasets.entries()) {
      const id = newId("cmp", nowMs);
      const isFirst = i === 0;
      records.push(
        newComparisonRecord({
          id,
          orgId,
          createdBy: principal.userId,
          problemName: `${resolved.project.name} × ${dataset.name}`,
          matrix: { batchId: admitted.id, datasetId: dataset.id },
          project: { id: resolved.project.id, versionId: resolved.version?.id ?? null },
          settings: admitted.settings,
          stats: isFirst ? admitted.stats : null,
          solverNames: request.solver_names,
          rows: admitted.plan.rows,
          problem: isFirst
            ? await storePayloadBytes(blobs, blobKeys.comparisonProblem(orgId, id), { json: first.problem.json, inlineMaxBytes: config.inlinePayloadMaxBytes })
            : null,
          modelNames: isFirst
            ? await storeModelNames(blobs, blobKeys.comparisonModelNames(orgId, id), {
                names: first.names,
                inlinePayloadMaxBytes: config.inlinePayloadMaxBytes,
              })
            : undefined,
          model: await storePayload(blobs, blobKeys.comparisonModel(orgId, id), {
            value: { jmodel_source: source, data: datas[i] },
            inlineMaxBytes: config.inlinePayloadMaxBytes,
          }),
          creditsEach: admitted.creditsEach,
          priority: request.priority,
          numerics: isFirst ? numericsOfAny(first.problem) : null,
          // The first row's problem is stored here and not compiled again by its worker: its structure counts too.
          structure: isFirst ? first.problem.structure : null,
          nowMs,
        }),
      );
    }
    return records;
  }

  /** Sends every row's job; a refused row is failed (enqueueComparison), the others still go, and the refusal is thrown after. */
  private async enqueueRows(records: ComparisonRecord[]): Promise<void> {
    let refused: unknown = null;
    for (const r of records) {
      try {
        await enqueueComparison(this.deps, r);
      } catch (error) {
        refused = error;
      }
    }
    if (refused) throw refused;
  }

  async get(principal: Principal, batchId: string): Promise<MatrixDetail> {
    const matrix = await this.deps.matrixStore.get(principal.orgId, batchId);
    if (!matrix) throw notFound("Matrix");
    return this.detail(principal.orgId, matrix);
  }

  async list(principal: Principal, { projectId, limit, offset }: { projectId?: string; limit: number; offset: number }) {
    const all = await this.deps.matrixStore.list(principal.orgId, projectId);
    const page = all.slice(offset, offset + limit);
    const batches = await Promise.all(
      page.map(async (m) => {
        const detail = await this.detail(principal.orgId, m);
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

  async cancel(principal: Principal, batchId: string): Promise<MatrixDetail> {
    const matrix = await this.deps.matrixStore.get(principal.orgId, batchId);
    if (!matrix) throw notFound("Matrix");
    for (const row of matrix.rows) await this.deps.comparisonStore.cancel(principal.orgId, row.comparison_id, this.deps.clock.now());
    return this.get(principal, batchId);
  }

  private async detail(orgId: string, matrix: MatrixRecord): Promise<MatrixDetail> {
    const rows = await this.deps.comparisonStore.getMany(
      orgId,
      matrix.rows.map((r) => r.comparison_id),
    );
    return matrixDetailOf(matrix, rows);
  }
}

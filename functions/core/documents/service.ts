import type { Services } from "../services.js";
import type { z } from "zod";
import type { Principal } from "../auth/service.js";
import { deleteStoredBlob, loadPayload, loadPayloadText, storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import { AppError, invalid, notFound } from "../errors.js";
import { newId } from "../ids.js";
import { compileJModel, isJModelError, type JModelError, type ModelNames, modelSymbols } from "../jmodel/index.js";
import { capRefusal, isModelCapExceeded, modelCaps } from "../limits/model-caps.js";
import type { Problem } from "../problem/schema.js";
import type { RaceRequest } from "../races/schemas.js";
import type { SettingsRequest } from "../solvers/settings.js";
import type { SolverChoice } from "../solvers/types.js";
import type { CreateDocumentSchema, CreateVersionSchema, DocumentModel, DocumentViewSchema, VersionSummarySchema, VersionViewSchema } from "./schemas.js";
import type { DocumentRecord, VersionRecord } from "./store.js";
import { blobKeys } from "../blob/keys.js";

type DocumentView = z.infer<typeof DocumentViewSchema>;
type VersionView = z.infer<typeof VersionViewSchema>;
type VersionSummary = z.infer<typeof VersionSummarySchema>;

/**
 * Builder documents: saving makes a version; unnamed versions beyond DOCUMENT_UNNAMED_VERSIONS_KEPT
 * (0 = keep all) are pruned after each save, newest kept; named versions are never pruned. A version a
 * trigger pins is named first (`promote`), so pruning cannot remove it.
 */
export class DocumentService {
  constructor(private readonly deps: Pick<Services, "documentStore" | "blobs" | "clock" | "config" | "executions" | "inventory" | "modelWork">) {}

  async create(principal: Principal, input: z.infer<typeof CreateDocumentSchema>): Promise<{ document: DocumentRecord; version: VersionRecord }> {
    const now = this.deps.clock.now();
    const document: DocumentRecord = {
      id: newId("doc", now),
      org_id: principal.orgId,
      name: input.name,
      created_by: principal.userId,
      version_count: 1,
      created_at: isoTime(now),
      updated_at: isoTime(now),
    };
    const version = await this.versionRecord(principal, { documentId: document.id, number: 1, model: input.model, solver: input.solver_name, name: null, now });
    await this.deps.documentStore.create(document);
    await this.deps.documentStore.putVersion(version);
    return { document, version };
  }

  async saveVersion(principal: Principal, documentId: string, input: z.infer<typeof CreateVersionSchema>): Promise<VersionRecord> {
    await this.get(principal, documentId);
    const latest = await this.deps.documentStore.latestVersion(documentId);
    const model = input.model ?? (latest ? await this.model(latest) : null);
    if (!model) throw invalid(["body", "model"], "the document has no version to take the model from; give model");
    const now = this.deps.clock.now();
    const number = await this.deps.documentStore.nextVersionNumber(principal.orgId, documentId, now);
    if (number === null) throw notFound("Document");
    const version = await this.versionRecord(principal, {
      documentId,
      number,
      model,
      solver: input.solver_name ?? latest?.solver_name ?? "auto",
      name: input.name ?? null,
      now,
    });
    await this.deps.documentStore.putVersion(version);
    await this.prune(documentId);
    return version;
  }

  private async versionRecord(
    principal: Principal,
    {
      documentId,
      number,
      model,
      solver,
      name,
      now,
    }: { documentId: string; number: number; model: DocumentModel; solver: SolverChoice; name: string | null; now: number },
  ): Promise<VersionRecord> {
    const id = newId("ver", now);
    return {
      id,
      document_id: documentId,
      org_id: principal.orgId,
      number,
      name,
      solver_name: solver,
      model_kind: model.kind,
      model: await storePayload(this.deps.blobs, blobKeys.documentVersionModel(principal.orgId, documentId, id), {
        value: model,
        inlineMaxBytes: this.deps.config.inlinePayloadMaxBytes,
      }),
      created_by: principal.userId,
      created_at: isoTime(now),
    };
  }

  /** Deletes unnamed versions past the newest `kept` (each delete conditional on still being unnamed). */
  private async prune(documentId: string): Promise<void> {
    const kept = this.deps.config.documentUnnamedVersionsKept;
    if (kept <= 0) return;
    const unnamed = (await this.deps.documentStore.listVersions(documentId)).filter((v) => v.name === null);
    for (const v of unnamed.slice(kept)) {
      if (await this.deps.documentStore.deleteUnnamedVersion(documentId, v.id)) {
        if ("blob" in v.model) await deleteStoredBlob(this.deps.blobs, "documents/", v.model.blob).catch(() => undefined);
      }
    }
  }

  async get(principal: Principal, id: string): Promise<DocumentRecord> {
    const doc = await this.deps.documentStore.get(principal.orgId, id);
    if (!doc) throw notFound("Document");
    return doc;
  }

  async list(principal: Principal): Promise<DocumentRecord[]> {
    return this.deps.documentStore.list(principal.orgId);
  }

  /** A version of a document of the organization, or null. */
  async findVersion(orgId: string, documentId: string, versionId: string): Promise<VersionRecord | null> {
    const version = await this.deps.documentStore.getVersion(documentId, versionId);
    return version && version.org_id === orgId ? version : null;
  }

  async getVersion(principal: Principal, documentId: string, versionId: string): Promise<VersionRecord> {
    await this.get(principal, documentId);
    const version = await this.findVersion(principal.orgId, documentId, versionId);
    if (!version) throw notFound("Version");
    return version;
  }

  /** Names a pinned version `v<number>` if unnamed. Null when it no longer exists (pruned meanwhile). */
  async promote(version: VersionRecord): Promise<VersionRecord | null> {
    if (version.name !== null) return version;
    return this.deps.documentStore.nameVersion(version.document_id, version.id, `v${version.number}`);
  }

  model(version: VersionRecord): Promise<DocumentModel> {
    return loadPayload<DocumentModel>(this.deps.blobs, version.model);
  }

  /** Names an override may replace: the data-given sets and parameters of a JModel model (none for a problem). */
  overridable(model: DocumentModel): string[] {
    if (model.kind !== "jmodel") return [];
    try {
      return modelSymbols(model.source).overridable;
    } catch (error) {
      if (isJModelError(error)) return [];
      throw error;
    }
  }

  /**
   * The canonical problem of a model with overrides applied, and for JModel the generated names' families
   * and indices, built within the instance's size caps on the calling thread (a worker's trigger run);
   * throws 422 model_did_not_compile, or the 403 of the cap it passed.
   */
  compile(model: DocumentModel, overrides: Record<string, unknown>, name: string): { problem: Problem; names: ModelNames | null } {
    if (model.kind === "problem") return { problem: model.problem, names: null };
    try {
      const compiled = compileJModel(model.source, model.data, { overrides, name, caps: modelCaps(this.deps.config) });
      return { problem: compiled.problem, names: compiled.names };
    } catch (error) {
      throw compileRefusal(error);
    }
  }

  /**
   * Runs a version as an async execution with the trigger's override rules: any data-given name of the
   * model, or solver_name, may be overridden; the order is the version's solver, then the request's,
   * then an override's. It is admitted like an async solve, `priority` (band, admins above 0) included.
   * The stored model is read, checked and compiled by the model work (model-work/tasks.ts, run_document),
   * off the event loop where the server has a model thread, and within the size caps.
   */
  async execute(
    principal: Principal,
    documentId: string,
    input: {
      version_id?: string;
      override_data?: Record<string, unknown>;
      solver_name?: SolverChoice;
      race?: RaceRequest;
      settings?: SettingsRequest;
      priority?: number;
    },
  ): Promise<{ executionId: string; versionId: string }> {
    const doc = await this.get(principal, documentId);
    const version = input.version_id ? await this.getVersion(principal, documentId, input.version_id) : await this.deps.documentStore.latestVersion(documentId);
    if (!version) throw notFound("Version");
    const modelJson = await loadPayloadText(this.deps.blobs, version.model);
    const available = await this.deps.inventory.available(this.deps.clock.now());
    // Refusals of the overrides answer 422 with the trigger codes (run_id null: a document run records no run).
    const built = await this.deps.modelWork
      .run({
        kind: "run_document",
        modelJson,
        sent: input.override_data ?? {},
        solvers: { version: version.solver_name, chosen: input.solver_name ?? null, available: [...available] },
        name: doc.name,
        caps: modelCaps(this.deps.config),
      })
      .catch((error: unknown) => {
        throw compileRefusal(error);
      });
    if (built.kind !== "compiled" || built.solver === null) throw new Error("internal: run_document answered without a problem");
    const record = await this.deps.executions.launch(
      principal,
      {
        problem: built.problem,
        solver_name: built.solver,
        settings: input.settings,
        priority: input.priority,
        // With solver_name `race` (the version's, the request's or an override's): its entrants (races/launch.ts).
        ...(built.solver === "race" && input.race ? { race: input.race } : {}),
        ...(built.names ? { names: built.names } : {}),
      },
      { origin: { kind: "document_run", id: documentId }, notify: true },
    );
    return { executionId: record.id, versionId: version.id };
  }

  summary(v: VersionRecord): VersionSummary {
    return {
      id: v.id,
      document_id: v.document_id,
      number: v.number,
      name: v.name,
      solver_name: v.solver_name,
      model_kind: v.model_kind,
      created_at: v.created_at,
    };
  }

  async versionView(v: VersionRecord): Promise<VersionView> {
    const model = await this.model(v);
    return { ...this.summary(v), model, overridable: this.overridable(model) };
  }

  async view(doc: DocumentRecord): Promise<DocumentView> {
    const versions = await this.deps.documentStore.listVersions(doc.id);
    if (versions.length === 0) throw notFound("Version");
    return {
      id: doc.id,
      name: doc.name,
      created_by: doc.created_by,
      version_count: doc.version_count,
      latest_version: await this.versionView(versions[0]!),
      versions: versions.map((v) => this.summary(v)),
      created_at: doc.created_at,
      updated_at: doc.updated_at,
    };
  }
}

/** What a caller is answered for a model that does not build: 422 model_did_not_compile, or the 403 of the cap it passed. */
function compileRefusal(error: unknown): unknown {
  if (isModelCapExceeded(error)) return capRefusal(error);
  if (!isJModelError(error)) return error;
  return didNotCompile(error);
}

function didNotCompile(error: JModelError): AppError {
  return new AppError("model_did_not_compile", `The model did not compile with this data: ${error.message} (line ${error.line}, column ${error.column}).`, {
    position: { line: error.line, column: error.column },
    problems: error.problems.slice(0, 3).map((p) => ({ line: p.line, column: p.column, message: p.message, code: p.code, kind: p.kind })),
  });
}

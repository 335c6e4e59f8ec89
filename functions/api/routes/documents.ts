import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Principal } from "../../core/auth/service.js";
import {
  CreateDocumentSchema,
  CreatedDocumentSchema,
  CreatedVersionSchema,
  CreateVersionSchema,
  DocumentListItemSchema,
  DocumentViewSchema,
  ExecuteDocumentSchema,
  ExecuteResponseSchema,
  VersionViewSchema,
} from "../../core/documents/schemas.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { type RouteSpec, route } from "../http/route.js";
import { DocumentIdParams, launchErrors } from "../http/route-parts.js";

const tag = "Builder documents";

/** Saving models and running them needs the solver role; reading them any role. */
export function registerDocumentRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "documents">): void {
  const { documents } = deps;
  route(
    app,
    {
      method: "post",
      path: "/api/v2/documents",
      operationId: "createDocument",
      summary: "Create a builder document; its first version is saved with it",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      body: CreateDocumentSchema,
      responses: { 201: { description: "The document and its first version.", schema: CreatedDocumentSchema } },
    },
    async (c, input) => {
      const { document, version } = await documents.create(input.principal, input.body);
      return c.json({ id: document.id, version_id: version.id, name: document.name, created_at: document.created_at }, 201);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/documents",
      operationId: "listDocuments",
      summary: "The organization's builder documents, newest first",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "Documents.", schema: z.object({ documents: z.array(DocumentListItemSchema) }) } },
    },
    async (c, input) => {
      const docs = await documents.list(input.principal);
      return c.json({
        documents: docs.map((d) => ({ id: d.id, name: d.name, version_count: d.version_count, created_at: d.created_at, updated_at: d.updated_at })),
      });
    },
  );

  const readDocument = async (c: Context<ApiEnv>, principal: Principal, id: string) => c.json(await documents.view(await documents.get(principal, id)));
  // GET /documents/{id} and the spec's GET /models/{id} answer the same read: declared once but for path, name and rate class.
  const readDocumentSpec = {
    tag,
    access: "user",
    role: "viewer",
    errors: ["not_found"],
    params: DocumentIdParams,
    responses: { 200: { description: "The document.", schema: DocumentViewSchema } },
  } satisfies Partial<RouteSpec<typeof DocumentIdParams, z.ZodType, z.ZodType, "user">>;

  route(
    app,
    {
      method: "get",
      path: "/api/v2/documents/:document_id",
      operationId: "getDocument",
      summary: "One document: its latest version in full and the versions kept",
      rateClass: "organization",
      ...readDocumentSpec,
    },
    async (c, input) => readDocument(c, input.principal, input.params.document_id),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/models/:document_id",
      operationId: "getModel",
      summary: "The spec's models/* read of a builder document (same as GET /api/v2/documents/{id})",
      rateClass: "models_read",
      ...readDocumentSpec,
    },
    async (c, input) => readDocument(c, input.principal, input.params.document_id),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/documents/:document_id/versions",
      operationId: "saveDocumentVersion",
      summary: "Save a version (optionally named); unnamed versions beyond DOCUMENT_UNNAMED_VERSIONS_KEPT are pruned",
      tag,
      access: "user",
      role: "solver",
      rateClass: "organization",
      errors: ["not_found"],
      params: DocumentIdParams,
      body: CreateVersionSchema,
      responses: { 201: { description: "The version.", schema: CreatedVersionSchema } },
    },
    async (c, input) => {
      const v = await documents.saveVersion(input.principal, input.params.document_id, input.body);
      return c.json({ id: v.id, document_id: v.document_id, number: v.number, name: v.name, created_at: v.created_at }, 201);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/documents/:document_id/versions/:version_id",
      operationId: "getDocumentVersion",
      summary: "One version with its model",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: DocumentIdParams.extend({ version_id: z.string().min(1) }),
      responses: { 200: { description: "The version.", schema: VersionViewSchema } },
    },
    async (c, input) => {
      return c.json(await documents.versionView(await documents.getVersion(input.principal, input.params.document_id, input.params.version_id)));
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/models/:document_id/execute",
      operationId: "executeModel",
      summary: "Run a document's version (latest when omitted) as an async execution",
      description:
        "Overrides follow a trigger's rules: any data-given set or parameter of the model, or solver_name; the solver is the version's, then the request's, then an override's. Poll GET /api/v2/models/executions/{execution_id}.",
      tag,
      access: "user",
      role: "solver",
      rateClass: "models_execute",
      errors: launchErrors({ before: ["not_found"], after: ["trigger_input_refused", "model_did_not_compile"] }),
      params: DocumentIdParams,
      body: ExecuteDocumentSchema,
      responses: {
        202: { description: "Queued.", schema: ExecuteResponseSchema },
      },
    },
    async (c, input) => {
      const { executionId, versionId } = await documents.execute(input.principal, input.params.document_id, input.body);
      return c.json({ execution_id: executionId, status: "queued" as const, version_id: versionId }, 202);
    },
  );
}

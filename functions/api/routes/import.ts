import type { Hono } from "hono";
import { z } from "zod";
import { badRequest, type ErrorName, invalid, ValidationError } from "../../core/errors.js";
import { capRefusal, isModelCapExceeded, modelCaps } from "../../core/limits/model-caps.js";
import { ACCEPTED_COMPRESSIONS, type Compression, modelTextLimitBytes, readModelText } from "../../core/problem/compressed.js";
import { NumericsSchema } from "../../core/problem/numerics.js";
import { ProblemSchema, ProblemStatsSchema } from "../../core/problem/schema.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { readJsonBody, route, zodIssues } from "../http/route.js";

const Format = z.enum(["mps", "lp", "auto"]);
const JsonImport = z.object({
  content: z.string().min(1).describe("the file's text"),
  format: Format.default("auto"),
  filename: z.string().max(255).optional(),
});

const PreviewSchema = z.object({
  problem: ProblemSchema.describe("ready to send as a comparison's or a solve's `problem`"),
  stats: ProblemStatsSchema,
  numerics: NumericsSchema,
  format: z.enum(["mps", "lp"]),
  filename: z.string().nullable(),
  compression: z.enum(ACCEPTED_COMPRESSIONS).nullable().describe("how the file came compressed (read from its first bytes); null for plain text"),
});

/** Bodies that are the file itself: its text, or its bytes (compressed or not). */
export const RAW_FILE_TYPES = ["text/plain", "application/gzip", "application/x-gzip", "application/octet-stream"];

/** What reading an uploaded problem file can answer, and the body it takes: the preview's, and every route that takes a file as it does. */
export const FILE_UPLOAD_ERRORS = [
  "invalid_problem_file",
  "validation_error",
  "malformed_json",
  "bad_request",
  "payload_too_large",
  "variable_limit_exceeded",
  "model_size_limit_exceeded",
] as const satisfies ErrorName[];
export const FILE_UPLOAD_BODY = {
  contentTypes: ["multipart/form-data", "application/json", ...RAW_FILE_TYPES],
  description: "the problem file, plain or gzip-compressed",
};

export interface Upload {
  text: string;
  format: "mps" | "lp" | "auto";
  filename: string | undefined;
  compression: Compression | null;
}

/**
 * The uploaded file's text, declared format and name, from multipart, JSON or a body that is the file.
 * A file (multipart or raw) may be gzip-compressed: it is streamed through decompression, and the
 * request body cap holds for the decompressed text too (core/problem/compressed.ts).
 */
export async function readUpload(c: Parameters<Parameters<typeof route>[2]>[0]): Promise<Upload> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  const limit = modelTextLimitBytes(c.get("deps").config.maxRequestBodyMb);
  const readFile = (source: Blob | ReadableStream<Uint8Array>) => readModelText(source, { maxBytes: limit.bytes, limitDescription: limit.describe });
  if (type.startsWith("multipart/form-data")) {
    // A body that is not the multipart its header announces (no or another boundary, cut short) is the caller's fault.
    const form = await c.req.parseBody().catch(() => {
      throw badRequest("The body is not multipart/form-data as its Content-Type says (boundary and parts).");
    });
    const file = form.file;
    if (!(file instanceof File)) throw invalid(["body", "file"], "a multipart field `file` holding the problem file is required");
    const format = Format.safeParse(typeof form.format === "string" ? form.format : "auto");
    if (!format.success) throw new ValidationError(zodIssues(format.error, "body").map((i) => ({ ...i, loc: ["body", "format"] })));
    const { text, compression } = await readFile(file);
    return { text, compression, format: format.data, filename: file.name || undefined };
  }
  if (RAW_FILE_TYPES.some((t) => type.startsWith(t))) {
    const format = Format.safeParse(c.req.query("format") ?? "auto");
    if (!format.success) throw new ValidationError(zodIssues(format.error, "query").map((i) => ({ ...i, loc: ["query", "format"] })));
    const { text, compression } = await readFile(c.req.raw.body ?? new Blob([]));
    return { text, compression, format: format.data, filename: c.req.query("filename") };
  }
  const parsed = JsonImport.safeParse(await readJsonBody(c));
  if (!parsed.success) throw new ValidationError(zodIssues(parsed.error, "body"));
  return { text: parsed.data.content, compression: null, format: parsed.data.format, filename: parsed.data.filename };
}

/**
 * The uploaded file read by the model work (off the event loop where there is a model thread), within
 * the size caps: `preview` answers the preview's JSON bytes, `read` the problem with its stats.
 */
export async function readUploadedModel(
  c: Parameters<Parameters<typeof route>[2]>[0],
  { deps, kind }: { deps: Pick<ApiDeps, "config" | "modelWork">; kind: "preview" | "read" },
) {
  const upload = await readUpload(c);
  if (upload.text.trim() === "") throw invalid(["body", "file"], "the file is empty");
  return deps.modelWork
    .run({ kind, text: upload.text, format: upload.format, filename: upload.filename ?? null, compression: upload.compression, caps: modelCaps(deps.config) })
    .catch((error: unknown) => {
      throw isModelCapExceeded(error) ? capRefusal(error) : error;
    });
}

export function registerImportRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "config" | "modelWork">): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/solve/import/preview",
      operationId: "importPreview",
      summary: "Parse an MPS or CPLEX LP file into the canonical problem (the file is not stored), with its stats and coefficient ranges",
      description:
        "Send the file as multipart/form-data (`file`, optional `format`), as the body itself (text/plain, application/gzip or application/octet-stream, with `?format=mps|lp` and `?filename=`), or its text as JSON `{content, format, filename}`. A file may be gzip-compressed (`.mps.gz`, `.lp.gz`; told from its first bytes): it is decompressed as it streams in, and MAX_REQUEST_BODY_MB holds for the decompressed text too (413 payload_too_large as soon as it is passed). bzip2, xz, zstd and zip are refused (422). A file that cannot be read answers 422 invalid_problem_file with the line. Reading stops at the instance's size caps (INSTANCE_MAX_VARIABLES, _CONSTRAINTS, _NONZEROS): 403.",
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: FILE_UPLOAD_ERRORS,
      rawBody: FILE_UPLOAD_BODY,
      responses: {
        200: { description: "The parsed problem and its stats.", schema: PreviewSchema },
      },
    },
    async (c) => {
      const read = await readUploadedModel(c, { deps, kind: "preview" });
      if (read.kind !== "preview") throw new Error("internal: preview answered without a body");
      return c.body(read.body as Uint8Array<ArrayBuffer>, 200, { "content-type": "application/json" });
    },
  );
}

import { z } from "zod";
import { ProblemSchema } from "../problem/schema.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/** Model projects, versions and datasets: shapes are ours (the spec only references them). */
const JsonObject = z.record(z.string(), z.unknown());

export const ModelProblemSchema = z.object({
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  kind: z.string(),
  code: z.string(),
});

export const CreateProjectSchema = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    jmodel_source: z.string().max(1_000_000).optional(),
    default_data: JsonObject.optional().describe("compiled with the source when no dataset is named"),
    problem: ProblemSchema.optional().describe("a flat or imported canonical problem, for a project without JModel"),
  })
  .refine((b) => !(b.jmodel_source !== undefined && b.problem !== undefined), { message: "give jmodel_source or problem, not both" });

export const UpdateProjectSchema = z.object({ name: z.string().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional() });

export const UpdateDraftSchema = z
  .object({
    jmodel_source: z.string().max(1_000_000).optional(),
    default_data: JsonObject.nullable().optional(),
    problem: ProblemSchema.optional(),
  })
  .refine((b) => !(b.jmodel_source !== undefined && b.problem !== undefined), { message: "give jmodel_source or problem, not both" });

export const CommitVersionSchema = z.object({ name: z.string().min(1).max(200).optional() });
export const CreateDatasetSchema = z.object({ name: z.string().min(1).max(200), data: JsonObject });

export const ProjectViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  kind: z.enum(["jmodel", "problem", "empty"]),
  jmodel_source: z.string().nullable(),
  default_data: JsonObject.nullable(),
  problem_name: z.string().nullable(),
  jmodel_problems: z.array(ModelProblemSchema).describe("what a check of the draft's source finds without data; empty when it compiles"),
  version_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
SCHEMA_NAMES.add(ProjectViewSchema, { id: "Project" });

export const VersionViewSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  number: z.number().int(),
  name: z.string().nullable(),
  kind: z.enum(["jmodel", "problem", "empty"]),
  jmodel_source: z.string().nullable(),
  default_data: JsonObject.nullable(),
  created_at: z.string(),
});
SCHEMA_NAMES.add(VersionViewSchema, { id: "ProjectVersion" });

export const DatasetViewSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  data: JsonObject,
  created_at: z.string(),
});
SCHEMA_NAMES.add(DatasetViewSchema, { id: "Dataset" });
export const DatasetSummarySchema = DatasetViewSchema.omit({ data: true });

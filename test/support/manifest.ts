import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { REPO_ROOT } from "./machine.js";

/**
 * The public instances the tests and benchmarks solve, carried in the repository (test/instances,
 * gzip-compressed, with a MANIFEST.tsv of known answers per set; its README says where each comes from).
 */
export const INSTANCES_DIR = path.join(REPO_ROOT, "test/instances");

export interface ManifestEntry {
  /** The instance's file name as distributed ("afiro.mps"), without the `.gz` it is stored under. */
  file: string;
  /** The stored file (`…/afiro.mps.gz`). */
  path: string;
  kind: "LP" | "MILP";
  rows: number;
  cols: number;
  integerCols: number;
  expectedStatus: "optimal" | "infeasible" | "unbounded";
  expectedObjective: number | null;
  /** The instance's family where the set names one (the wide set: netlib, kennington, miplib3, …). */
  family: string | null;
}

/** The scale set (issue 17): larger netlib LPs and MIPLIB 3 MILPs, with a manifest of the same columns. */
export const SCALE_DIR = path.join(INSTANCES_DIR, "scale");
/** The wide set (issue 30): 70 LPs and MILPs from nine families, for the jaos benchmark only. */
export const WIDE_DIR = path.join(INSTANCES_DIR, "wide");

export const INSTANCE_SETS = ["main", "scale", "wide"] as const;

/** The instance sets by name: "main" (the manifest), "scale" and "wide". */
export function instanceSetDir(set: string): string {
  if (set === "main") return INSTANCES_DIR;
  if (set === "scale") return SCALE_DIR;
  if (set === "wide") return WIDE_DIR;
  throw new Error(`unknown instance set "${set}" (${INSTANCE_SETS.join(", ")})`);
}

const withoutGz = (file: string) => file.replace(/\.gz$/, "");

/** The known answers of one set directory (its MANIFEST.tsv). */
export function readManifest(dir: string = INSTANCES_DIR): ManifestEntry[] {
  const text = readFileSync(path.join(dir, "MANIFEST.tsv"), "utf8");
  const [header, ...lines] = text.trim().split("\n");
  const cols = header!.split("\t");
  const at = (name: string) => cols.indexOf(name);
  return lines.map((line) => {
    const f = line.split("\t");
    const objective = f[at("expected_objective")]!;
    return {
      file: withoutGz(f[at("file")]!),
      path: path.join(dir, f[at("file")]!),
      kind: f[at("kind")] as "LP" | "MILP",
      rows: Number(f[at("rows")]),
      cols: Number(f[at("cols")]),
      integerCols: Number(f[at("integer_cols")]),
      expectedStatus: f[at("expected_status")] as ManifestEntry["expectedStatus"],
      expectedObjective: objective === "" ? null : Number(objective),
      family: at("family") >= 0 ? f[at("family")]! : null,
    };
  });
}

/** The stored file of an instance named as distributed, relative to test/instances ("afiro.mps", "scale/pilot87.mps"). */
export function instancePath(name: string): string {
  const stored = path.join(INSTANCES_DIR, `${withoutGz(name)}.gz`);
  if (!existsSync(stored)) throw new Error(`no instance ${name} in test/instances`);
  return stored;
}

/** The compressed bytes as stored (what a user uploads as `afiro.mps.gz`). */
export const instanceBytes = (name: string): Buffer => readFileSync(instancePath(name));

/** The instance's text: a manifest entry or a name as `instancePath` takes it. */
export function readInstance(instance: ManifestEntry | string): string {
  const stored = typeof instance === "string" ? instancePath(instance) : instance.path;
  const bytes = readFileSync(stored);
  return (stored.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

let plainDir: string | null = null;

/**
 * The instance decompressed into a temporary folder of this process (once), for a program that reads a
 * plain file by path (glpsol, highspy).
 */
export function plainInstanceFile(instance: ManifestEntry | string): string {
  const name = typeof instance === "string" ? instance : path.relative(INSTANCES_DIR, instance.path);
  if (plainDir === null) {
    const dir = mkdtempSync(path.join(tmpdir(), "instances-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    plainDir = dir;
  }
  const target = path.join(plainDir, withoutGz(name));
  if (!existsSync(target)) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readInstance(instance));
  }
  return target;
}

/** The manifest's comparison rule: 1e-6 relative, absolute for an optimum of 0. */
export function objectiveMatches(actual: number | null, expected: number, tol = 1e-6): boolean {
  if (actual === null) return false;
  return Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected));
}

import { readFileSync } from "node:fs";
import path from "node:path";
import { INSTANCES_DIR } from "./machine.js";

export interface ManifestEntry {
  file: string;
  path: string;
  kind: "LP" | "MILP";
  rows: number;
  cols: number;
  integerCols: number;
  expectedStatus: "optimal" | "infeasible" | "unbounded";
  expectedObjective: number | null;
}

/** The scale set (issue 17): larger netlib LPs and MIPLIB 3 MILPs, with a manifest of the same columns. */
export const SCALE_DIR = path.join(INSTANCES_DIR, "scale");

/** The instance sets by name: "main" (the manifest) and "scale". */
export function instanceSetDir(set: string): string {
  if (set === "main") return INSTANCES_DIR;
  if (set === "scale") return SCALE_DIR;
  throw new Error(`unknown instance set "${set}" (main or scale)`);
}

/**
 * The public instances beside the checkout, with their known answers (`../shared/instances`), or
 * those of another set directory with the same MANIFEST.tsv columns.
 */
export function readManifest(dir: string = INSTANCES_DIR): ManifestEntry[] {
  const text = readFileSync(path.join(dir, "MANIFEST.tsv"), "utf8");
  const [header, ...lines] = text.trim().split("\n");
  const cols = header!.split("\t");
  const at = (name: string) => cols.indexOf(name);
  return lines.map((line) => {
    const f = line.split("\t");
    const objective = f[at("expected_objective")]!;
    return {
      file: f[at("file")]!,
      path: path.join(dir, f[at("file")]!),
      kind: f[at("kind")] as "LP" | "MILP",
      rows: Number(f[at("rows")]),
      cols: Number(f[at("cols")]),
      integerCols: Number(f[at("integer_cols")]),
      expectedStatus: f[at("expected_status")] as ManifestEntry["expectedStatus"],
      expectedObjective: objective === "" ? null : Number(objective),
    };
  });
}

/** The manifest's comparison rule: 1e-6 relative, absolute for an optimum of 0. */
export function objectiveMatches(actual: number | null, expected: number, tol = 1e-6): boolean {
  if (actual === null) return false;
  return Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected));
}

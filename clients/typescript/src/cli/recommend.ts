import Table from "cli-table3";
import type { IncumbentClient } from "../client.js";
import { readProblemFile } from "../node.js";
import type { Recommendation } from "../types.js";
import { EXIT } from "./exit-codes.js";
import { num } from "./render.js";
import type { Io } from "./solve.js";

const BASIS: Record<Recommendation["basis"], string> = {
  organization: "your organization's comparisons",
  public: "the public benchmark table",
  default_rule: "the default rule",
};

/** The choice, why, what it stood on, then every able solver ranked with its expected time. */
export function recommendationText(r: Recommendation): string {
  const table = new Table({ head: ["solver", "expected (s)", "fastest on", "runs"], style: { head: [], border: [] } });
  for (const row of r.ranking) table.push([row.solver === r.solver ? `${row.solver} *` : row.solver, num(row.expected_seconds), row.fastest_on, row.runs]);
  const similar = r.evidence.similar_problems;
  return [
    `auto would run ${r.solver}`,
    r.reason,
    `basis: ${BASIS[r.basis]}; ${r.evidence.comparisons} comparison(s) read${similar.length > 0 ? `; similar: ${similar.join(", ")}` : ""}`,
    table.toString(),
  ].join("\n");
}

/**
 * `incumbent recommend FILE`: what `auto` would run for this problem. The service reads the file (as an
 * import preview, gzip or not) and judges the problem it holds as `auto` would solving it: its sizes and
 * its coefficient ranges, not only the stats a preview reports.
 */
export async function recommendCommand(client: IncumbentClient, { file, json }: { file: string; json: boolean }, io: Io): Promise<number> {
  const recommendation = await client.recommendationForFile(await readProblemFile(file));
  io.out.write(json ? `${JSON.stringify(recommendation)}\n` : `${recommendationText(recommendation)}\n`);
  return EXIT.optimal;
}

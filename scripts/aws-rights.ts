/**
 * `npm run rights`: writes docs/aws-rights.md, the AWS actions each deployed bundle needs (derived from
 * its source) as the synthesized dev stage grants them. test/infra/rights.test.ts fails when the file is
 * stale or when a role and its code disagree.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { CodeRights } from "../test/infra/code-rights.js";
import { bundlesOf, renderRightsTable, rightsReports } from "../test/infra/rights.js";
import { synthesize } from "../test/infra/synthesize.js";
import { REPO_ROOT } from "../test/support/machine.js";

const dev = synthesize("dev");
const code = new CodeRights([...new Set(bundlesOf(dev.stack).flatMap((b) => b.entries))]);
const reports = rightsReports(code, dev.stack, dev.json, dev.config);
writeFileSync(path.join(REPO_ROOT, "docs/aws-rights.md"), renderRightsTable(reports, "dev"));
for (const r of reports) {
  if (r.missing.length || r.unneeded.length)
    console.error(`${r.bundle.name}: missing ${r.missing.join(", ") || "none"}; unneeded ${r.unneeded.join(", ") || "none"}`);
}
console.log("wrote docs/aws-rights.md");

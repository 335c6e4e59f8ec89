import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";

/**
 * The layer rules of `.dependency-cruiser.cjs` (issue 28), run by dependency-cruiser itself: on the
 * repository (no violation), and on small trees that each break one rule (the rule's name comes back).
 */
const run = promisify(execFile);
const CONFIG = path.join(REPO_ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = path.join(REPO_ROOT, "node_modules/.bin/depcruise");
const SHIPPED = ["functions", "solver-container", "lib", "bin", "clients/typescript/src", "packages"];

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function cruise(cwd: string, roots: string[]): Promise<Violation[]> {
  // depcruise exits non-zero when a rule is broken; its JSON report is on stdout either way.
  const out = await run(DEPCRUISE, [...roots, "--config", CONFIG, "--output-type", "json"], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }),
  );
  const report = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations;
}

const scratch = mkdtempSync(path.join(tmpdir(), "incumbent-layers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A tree of files (path → source) in a fresh folder with the project's module settings. */
function tree(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name);
  const all: Record<string, string> = {
    "tsconfig.json": JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true } }),
    ...files,
  };
  for (const [file, source] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  return root;
}

describe("the layers of the house", () => {
  it("hold on the repository: no shipped module breaks a rule", async () => {
    const present = SHIPPED.filter((d) => existsSync(path.join(REPO_ROOT, d)));
    const violations = await cruise(REPO_ROOT, present);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  const wrongImports: { rule: string; files: Record<string, string> }[] = [
    {
      rule: "core-never-imports-a-handler",
      files: {
        "functions/api/routes/solve.ts": "export const route = 1;\n",
        "functions/core/executions/service.ts": 'import { route } from "../../api/routes/solve.js";\nexport const x = route;\n',
      },
    },
    {
      rule: "handlers-never-reach-the-table",
      files: {
        "functions/core/store/table.ts": "export const table = 1;\n",
        "functions/api/routes/solve.ts": 'import { table } from "../../core/store/table.js";\nexport const x = table;\n',
      },
    },
    {
      rule: "stores-never-import-services",
      files: {
        "functions/core/executions/service.ts": "export const launch = 1;\n",
        "functions/core/executions/store.ts": 'import { launch } from "./service.js";\nexport const x = launch;\n',
      },
    },
    {
      rule: "worker-never-imports-a-handler",
      files: {
        "functions/api/app.ts": "export const app = 1;\n",
        "solver-container/src/jobs/run-job.ts": 'import { app } from "../../../functions/api/app.js";\nexport const x = app;\n',
      },
    },
    {
      rule: "jaos-imports-nothing-of-the-service",
      files: {
        "functions/core/problem/schema.ts": "export const schema = 1;\n",
        "packages/jaos/src/model.ts": 'import { schema } from "../../../functions/core/problem/schema.js";\nexport const x = schema;\n',
      },
    },
    {
      rule: "no-test-code-in-production",
      files: {
        "test/support/fakes.ts": "export const fake = 1;\n",
        "functions/core/queue/sender.ts": 'import { fake } from "../../../test/support/fakes.js";\nexport const x = fake;\n',
      },
    },
    {
      rule: "no-circular",
      files: {
        "functions/core/a/one.ts": 'import { two } from "../b/two.js";\nexport const one = () => two;\n',
        "functions/core/b/two.ts": 'import { one } from "../a/one.js";\nexport const two = () => one;\n',
      },
    },
  ];

  for (const { rule, files } of wrongImports) {
    it(`fail on a deliberately wrong import, naming the rule ${rule}`, async () => {
      const root = tree(rule, files);
      const violations = await cruise(root, ["."]);
      expect(violations.map((v) => v.rule.name)).toContain(rule);
    });
  }

  it("let a cycle through type-only imports pass", async () => {
    const root = tree("type-only-cycle", {
      "functions/core/a/one.ts": 'import type { Two } from "../b/two.js";\nexport interface One { two?: Two }\n',
      "functions/core/b/two.ts": 'import type { One } from "../a/one.js";\nexport interface Two { one?: One }\n',
    });
    expect(await cruise(root, ["."])).toEqual([]);
  });
});

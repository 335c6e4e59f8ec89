import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";

interface LockedPackage {
  version?: string;
  hasInstallScript?: boolean;
  engines?: { node?: string };
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };

/** `node_modules/a/node_modules/@b/c` → `@b/c`: the package a lockfile key installs. */
const packageName = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);

/**
 * `npm ci` on a fresh clone prints no warning (issue 27): every install script is reviewed in
 * `allowScripts`, and the locked dependency set runs on the Node that `engines` admits.
 */
describe("installing the repository", () => {
  it("names every dependency that has an install script in package.json's allowScripts (approved or denied)", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([key, p]) => key !== "" && p.hasInstallScript)
      .map(([key]) => packageName(key));
    expect(withScripts.length).toBeGreaterThan(0);
    const reviewed = new Set(Object.keys(manifest.allowScripts ?? {}).map((k) => k.replace(/(.)@.*$/, "$1")));
    expect(withScripts.filter((name) => !reviewed.has(name))).toEqual([]);
  });

  it("locks no package whose engines exclude this Node (npm's own engine-strict check, offline, on a copy)", () => {
    expect(manifest.engines.node).toBe(">=20.19");
    const dir = mkdtempSync(path.join(tmpdir(), "engines-"));
    try {
      for (const file of ["package.json", "package-lock.json"]) copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
      const run = () =>
        execFileSync(
          "npm",
          ["install", "--package-lock-only", "--dry-run", "--engine-strict", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"],
          {
            cwd: dir,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
      expect(run).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

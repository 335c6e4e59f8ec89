/**
 * Builds the solver container's worker: our TypeScript compiled by esbuild into plain ESM files, the
 * npm packages left to node_modules. The image runs the result (`node solver-container/dist/worker.js`),
 * and so does the local stack, from a build keyed by the sources' state (`.build/worker/<hash>`).
 *
 * Four entries, side by side, because the worker starts the TypeScript engines (jaos, HiGHS-wasm) in a
 * Node child that imports them by file (solver-container/src/adapters/node-engine.ts). A fifth, the
 * API's model thread (functions/core/model-work/thread.ts), is built with them for the local stack.
 * The npm packages stay external, but not the repository's own jaos (`@incumbent/jaos`, TypeScript
 * sources in packages/jaos): it is bundled in from its sources, so the image needs no link to it.
 *
 *   tsx solver-container/build.ts [outDir]      (default solver-container/dist)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const SRC = path.join(ROOT, "solver-container/src");
const JAOS_SRC = path.join(ROOT, "packages/jaos/src");

export const WORKER_ENTRIES = {
  worker: path.join(SRC, "worker.ts"),
  "node-child": path.join(SRC, "adapters/node-child.ts"),
  jaos: path.join(SRC, "adapters/jaos.ts"),
  "highs-wasm": path.join(SRC, "adapters/highs-wasm.ts"),
  "model-thread": path.join(ROOT, "functions/core/model-work/thread.ts"),
};

export async function buildWorker(outDir: string): Promise<void> {
  const { build } = await import("esbuild");
  await build({
    entryPoints: WORKER_ENTRIES,
    outdir: outDir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    // applied before `packages: "external"`, so the workspace package is bundled as our own code
    alias: { "@incumbent/jaos": path.join(JAOS_SRC, "index.ts") },
    sourcemap: true,
    logLevel: "warning",
  });
}

function sourceFingerprint(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts")) {
        const s = statSync(full);
        hash.update(`${full}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  walk(path.join(ROOT, "functions"));
  walk(SRC);
  walk(JAOS_SRC);
  hash.update(path.join(ROOT, "solver-container/build.ts"));
  return hash.digest("hex").slice(0, 16);
}

/**
 * The local stack's build: reused while the sources are unchanged; built into a temporary folder and
 * renamed into place, so stacks starting at once (parallel tests) never see half a build.
 */
export async function ensureWorkerBuild(): Promise<string> {
  const dir = path.join(ROOT, ".build/worker", sourceFingerprint());
  if (existsSync(path.join(dir, "worker.js"))) return dir;
  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await buildWorker(tmp);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another stack finished the same build first
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildWorker(path.resolve(process.argv[2] ?? path.join(ROOT, "solver-container/dist")));
}

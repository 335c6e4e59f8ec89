import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Paths the adapters need, resolved from where this code sits — the checkout's sources, a worker build
 * (solver-container/dist, .build/worker/…) or the image, which keeps the layout — never from the
 * process's working directory: the root is the nearest folder above holding package.json.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, "../../..");
  }
}

export const REPO_ROOT = findRoot(import.meta.dirname);

export const PYTHON_RUNNER = path.join(REPO_ROOT, "solver-container/python/runner.py");

/** Config's `pythonPath` (default `.venv/bin/python`): absolute as given, else relative to the repo root. */
export function resolvePythonPath(configured: string): string {
  if (path.isAbsolute(configured)) return configured;
  // A bare command name ("python3") is looked up on PATH, as the user meant.
  if (!configured.includes("/")) return configured;
  return path.resolve(REPO_ROOT, configured);
}

import path from "node:path";

/**
 * Paths the adapters need, resolved from this file's place in the checkout (or the image, which keeps the
 * same layout), never from the process's working directory.
 */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export const PYTHON_RUNNER = path.join(REPO_ROOT, "solver-container/python/runner.py");

/** Config's `pythonPath` (default `.venv/bin/python`): absolute as given, else relative to the repo root. */
export function resolvePythonPath(configured: string): string {
  if (path.isAbsolute(configured)) return configured;
  // A bare command name ("python3") is looked up on PATH, as the user meant.
  if (!configured.includes("/")) return configured;
  return path.resolve(REPO_ROOT, configured);
}

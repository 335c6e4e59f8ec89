import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Machine extras (solvers, moto_server). On a laptop a missing one skips its tests with a printed
 * reason; under CI=true it fails them: CI proves the whole thing.
 */
export const IN_CI = process.env.CI === "true";
export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

function onPath(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const checks: Record<string, () => boolean> = {
  cbc: () => onPath("cbc"),
  glpsol: () => onPath("glpsol"),
  python_solvers: () => {
    const py = path.join(REPO_ROOT, ".venv/bin/python");
    if (!existsSync(py)) return false;
    try {
      execFileSync(py, ["-c", "import pyscipopt, highspy"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  },
  moto_server: () => onPath("moto_server"),
  chromium: () => onPath("chromium"),
};

const cache = new Map<string, boolean>();

export function has(extra: keyof typeof checks): boolean {
  if (!cache.has(extra)) cache.set(extra, checks[extra]!());
  return cache.get(extra)!;
}

/**
 * True when the tests needing `extras` should run. Prints why they are skipped on a laptop, and
 * throws under CI so the run fails rather than passing without them.
 */
export function machineHas(...extras: (keyof typeof checks)[]): boolean {
  const missing = extras.filter((e) => !has(e));
  if (missing.length === 0) return true;
  const message = `missing on this machine: ${missing.join(", ")}`;
  if (IN_CI) throw new Error(`${message} (required under CI=true; scripts/setup-test-env.sh installs them)`);
  console.warn(`[skip] ${message}`);
  return false;
}

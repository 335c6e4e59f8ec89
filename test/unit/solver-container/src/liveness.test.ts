import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SOLVER_HEALTHCHECK, WORKER_LIVENESS_FILE } from "../../../../lib/solver-fleet.js";
import { Liveness } from "../../../../solver-container/src/liveness.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "liveness-"));
  dirs.push(dir);
  return path.join(dir, "alive");
};

/** The task's health check, run by the shell as ECS runs CMD-SHELL, on `file` instead of the task's path. */
const healthy = (file: string) => {
  try {
    execFileSync("sh", ["-c", `${SOLVER_HEALTHCHECK.replaceAll(WORKER_LIVENESS_FILE, file)} || exit 1`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

describe("the worker's liveness and the task's health check", () => {
  it("the check passes on a fresh file and fails on one a minute old or missing (a hung worker is replaced)", () => {
    const file = tempFile();
    expect(healthy(file)).toBe(false); // never written
    writeFileSync(file, "");
    expect(healthy(file)).toBe(true);
    const old = new Date(Date.now() - 61_000);
    utimesSync(file, old, old);
    expect(healthy(file)).toBe(false);
  });

  it("moves the file only while the worker's loop makes progress", async () => {
    const file = tempFile();
    let progressing = true;
    const liveness = new Liveness({ file, everyMs: 20, alive: () => progressing });
    await liveness.start();
    const first = statSync(file).mtimeMs;
    await new Promise((r) => setTimeout(r, 120));
    expect(statSync(file).mtimeMs).toBeGreaterThan(first);
    progressing = false;
    await new Promise((r) => setTimeout(r, 40));
    const stalled = statSync(file).mtimeMs;
    await new Promise((r) => setTimeout(r, 120));
    expect(statSync(file).mtimeMs).toBe(stalled);
    liveness.stop();
  });

  it("writes nothing without a file configured (locally)", async () => {
    const liveness = new Liveness({ file: "", everyMs: 10, alive: () => true });
    await liveness.start();
    liveness.stop();
  });
});

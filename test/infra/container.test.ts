import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WORKER_COMMAND } from "../../lib/solver-fleet.js";
import { buildWorker } from "../../solver-container/build.js";
import { REPO_ROOT } from "../support/machine.js";

/**
 * The solver image, checked without a Docker engine: what the Dockerfile must say, and that the
 * command it runs is the one the local stack runs — which this test runs, outside Docker, as CI does.
 */
const dockerfile = readFileSync(path.join(REPO_ROOT, "solver-container/Dockerfile"), "utf8");
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe("solver-container/Dockerfile", () => {
  it("is multi-stage on one pinned Node 22 bookworm-slim base", () => {
    const base = instructions.find((l) => l.startsWith("ARG NODE_IMAGE="));
    expect(base).toMatch(/^ARG NODE_IMAGE=node:22\.\d+\.\d+-bookworm-slim$/);
    const froms = instructions.filter((l) => l.startsWith("FROM "));
    expect(froms.length).toBeGreaterThanOrEqual(3);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\} AS [a-z-]+$/);
  });

  it("runs as a non-root user, with a health check, the worker's command and no build tools", () => {
    const users = instructions.filter((l) => l.startsWith("USER "));
    expect(users.at(-1)).toBe("USER node");
    expect(instructions.some((l) => l.startsWith("HEALTHCHECK "))).toBe(true);
    expect(instructions.at(-1)).toBe(`CMD ${JSON.stringify(WORKER_COMMAND).replace(/","/g, '", "')}`);
    const runtime = instructions.slice(instructions.indexOf("FROM ${NODE_IMAGE} AS runtime"));
    const installs = runtime.filter((l) => l.startsWith("RUN ")).join(" ");
    expect(installs).toContain("--no-install-recommends python3 coinor-cbc glpk-utils");
    expect(installs).not.toMatch(/build-essential|gcc|python3-venv|python3-pip|\bgit\b/);
    const copies = runtime.filter((l) => l.startsWith("COPY ") && !l.startsWith("COPY --from"));
    expect(copies.map((l) => l.split(/\s+/).slice(1, -1).join(" ")).sort()).toEqual(["package.json", "solver-container/python"]);
    expect(runtime).toContain("COPY --from=build /app/solver-container/dist ./solver-container/dist");
  });

  it("compiles the worker in a build stage and installs production dependencies only at run time", () => {
    const build = instructions.slice(instructions.indexOf("FROM ${NODE_IMAGE} AS build"), instructions.indexOf("FROM ${NODE_IMAGE} AS node-deps"));
    expect(build).toContain("RUN node --import tsx solver-container/build.ts solver-container/dist");
    // jaos is a workspace package of TypeScript sources: the build bundles it from them (build.ts, alias).
    expect(build).toContain("COPY packages/jaos/src ./packages/jaos/src");
    expect(build).toContain("COPY packages/jaos/package.json ./packages/jaos/package.json");
    expect(dockerfile).toContain("npm ci --omit=dev");
  });

  it("the build context is an allow-list (.dockerignore)", () => {
    const ignore = readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("#"));
    expect(ignore[0]).toBe("*");
    expect(ignore).toContain("!functions/core/**");
    expect(ignore).toContain("!packages/jaos/src/**");
    expect(ignore).toContain("**/*.test.ts");
  });
});

describe("the worker command", () => {
  it("is the local stack's: node running worker.js of a build made by the same script", () => {
    const fleet = readFileSync(path.join(REPO_ROOT, "bin/local/worker-fleet.ts"), "utf8");
    expect(fleet).toMatch(/spawn\(process\.execPath, \[path\.join\(this\.options\.build, "worker\.js"\)/);
    const stack = readFileSync(path.join(REPO_ROOT, "bin/local/local-stack.ts"), "utf8");
    // The same build also holds the API's model thread (functions/core/model-work/thread.ts).
    expect(stack).toMatch(/const build = await ensureWorkerBuild\(\);[\s\S]*new LocalWorkerFleet\(\{\s*build,/);
    expect(WORKER_COMMAND).toEqual(["node", "solver-container/dist/worker.js"]);
  });

  it("runs outside Docker from a checkout: a bad job is refused with exit code 2", async () => {
    await buildWorker(path.join(REPO_ROOT, "solver-container/dist"));
    const [, ...args] = WORKER_COMMAND;
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: REPO_ROOT,
        env: { ...process.env, JOB: JSON.stringify({ type: "not-a-job" }), LOG_LEVEL: "ERROR", AWS_REGION: "us-east-1", TABLE_NAME: "unused" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("error", reject);
      child.on("close", (exit) => resolve({ code: exit, output }));
    });
    expect(code, output).toBe(2);
    expect(output).toContain("bad job");
  }, 60_000);
});

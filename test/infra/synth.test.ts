import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";

/**
 * The real `cdk synth` (the pinned aws-cdk CLI from devDependencies), as CI runs it: offline, without
 * AWS credentials, and without Docker. A `docker` on PATH that records any call and fails proves that
 * synth neither builds the solver image (it only stages its build context) nor falls back to bundling
 * a Lambda in a container.
 */
const STACK = "Incumbent-dev";
let work: string;
let outdir: string;
let dockerCalls: string;
let result: { code: number | null; output: string; ms: number };

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, ms: Date.now() - started }));
  });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "incumbent-synth-"));
  outdir = path.join(work, "cdk.out");
  dockerCalls = path.join(work, "docker-calls.log");
  const bin = path.join(work, "bin");
  const stub = path.join(bin, "docker");
  mkdirSync(bin);
  writeFileSync(stub, `#!/bin/sh\necho "$@" >> "${dockerCalls}"\nexit 1\n`);
  chmodSync(stub, 0o755);

  // No credentials, no profile, no instance metadata, no version or telemetry calls: offline as in CI.
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(AWS_|CDK_)/.test(key)) env[key] = value;
  Object.assign(env, {
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    CDK_DOCKER: stub,
    AWS_CONFIG_FILE: path.join(work, "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: path.join(work, "no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    CDK_DISABLE_VERSION_CHECK: "true",
    CDK_DISABLE_CLI_TELEMETRY: "true",
  });
  const cli = path.join(REPO_ROOT, "node_modules/aws-cdk/bin/cdk");
  result = await run(process.execPath, [cli, "synth", "--quiet", "--no-notices", "--output", outdir], env);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("cdk synth (offline, no credentials, no Docker)", () => {
  it("succeeds and writes the stage's template", () => {
    expect(result.code, result.output).toBe(0);
    const template = JSON.parse(readFileSync(path.join(outdir, `${STACK}.template.json`), "utf8"));
    expect(Object.keys(template.Resources).length).toBeGreaterThan(50);
  });

  it("never calls Docker", () => {
    expect(existsSync(dockerCalls) ? readFileSync(dockerCalls, "utf8") : "").toBe("");
  });

  it("stages the solver image's context with the Dockerfile and only what the image copies", () => {
    const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK}.assets.json`), "utf8"));
    const images = Object.values(assets.dockerImages) as { source: { directory: string; dockerFile: string; platform?: string } }[];
    expect(images).toHaveLength(1);
    const { source } = images[0]!;
    expect(source.dockerFile).toBe("solver-container/Dockerfile");
    expect(source.platform).toBe("linux/amd64");
    const context = path.join(outdir, source.directory);
    for (const file of [
      "solver-container/Dockerfile",
      "solver-container/src/worker.ts",
      "solver-container/python/requirements.txt",
      "functions/core/config.ts",
      "packages/jaos/package.json",
      "packages/jaos/src/index.ts",
      "package-lock.json",
    ]) {
      expect(existsSync(path.join(context, file)), file).toBe(true);
    }
    for (const absent of ["node_modules", ".venv", ".git", "lib", "test", "functions/api", "cdk.out"])
      expect(existsSync(path.join(context, absent)), absent).toBe(false);
    const files = readdirSync(context, { recursive: true }) as string[];
    expect(files.filter((f) => f.endsWith(".test.ts"))).toEqual([]);
  });

  it("bundles each Lambda as an ESM file with a require shim, locally by esbuild", () => {
    const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK}.assets.json`), "utf8"));
    const bundles = (Object.values(assets.files) as { source: { path: string; packaging?: string } }[])
      .filter((f) => f.source.packaging === "zip" && existsSync(path.join(outdir, f.source.path, "index.mjs")))
      .map((f) => readFileSync(path.join(outdir, f.source.path, "index.mjs"), "utf8"));
    expect(bundles).toHaveLength(4);
    for (const code of bundles) expect(code.startsWith("import { createRequire as __incumbentCreateRequire } from 'node:module';")).toBe(true);
  });
});

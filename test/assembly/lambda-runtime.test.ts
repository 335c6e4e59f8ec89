import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LambdaProcess } from "./lambda-runtime.js";

/**
 * The assembly test's Lambda runtime must fail a bundle that needs what its asset lacks, as Lambda
 * would: these bundles are built here, each missing one thing.
 */
const root = mkdtempSync(path.join(os.tmpdir(), "incumbent-lambda-runtime-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function asset(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

const start = (taskRoot: string) =>
  new LambdaProcess("probe", { taskRoot, handler: "index.handler", environment: {}, timeoutSeconds: 3, memoryMb: 128 }).start();

describe("the assembly test's Lambda runtime", () => {
  it("fails a bundle whose module reads a runtime file its asset lacks (as HiGHS's wasm was missing)", async () => {
    const dir = asset("missing-file", {
      "index.mjs": `import { readFileSync } from "node:fs";\nconst wasm = readFileSync(new URL("./highs.wasm", import.meta.url));\nexport const handler = async () => wasm.length;\n`,
    });
    await expect(start(dir)).rejects.toThrow(/ENOENT.*highs\.wasm/);
  });

  it("fails a bundle that imports a package it did not bundle: nothing above the asset resolves it", async () => {
    const dir = asset("unbundled-package", { "index.mjs": `import { z } from "zod";\nexport const handler = async () => typeof z;\n` });
    await expect(start(dir)).rejects.toThrow(/Cannot find package 'zod'/);
  });

  it("runs a complete bundle's handler with the event and a context", async () => {
    const dir = asset("complete", {
      "index.mjs": `export const handler = async (event, context) => ({ echo: event.n, fn: context.functionName, left: context.getRemainingTimeInMillis() > 0 });\n`,
    });
    const fn = new LambdaProcess("complete", { taskRoot: dir, handler: "index.handler", environment: {}, timeoutSeconds: 3, memoryMb: 128 });
    await fn.start();
    try {
      expect(await fn.invoke({ n: 7 })).toMatchObject({ result: { echo: 7, fn: "complete", left: true } });
    } finally {
      fn.stop();
    }
  });
});

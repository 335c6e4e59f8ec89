import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ProblemFile } from "./client.js";

export * from "./index.js";

/**
 * A problem file from disk, as its bytes: `.mps`, `.lp`, or either gzip-compressed (`.mps.gz`); the
 * service tells the compression from the first bytes and the format from the name.
 */
export async function readProblemFile(file: string): Promise<ProblemFile> {
  const content = new Uint8Array(await readFile(file));
  return { content, filename: path.basename(file) };
}

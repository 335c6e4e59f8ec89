import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";

/**
 * Where the black-box suite points: BASE_URL + API_KEY from the environment (a deployed stage, a
 * LocalStack deployment), or else a local stack started exactly as the README says (`npm start`), on a
 * free port with a seeded key. Nothing here reaches inside the service.
 */
export interface Target {
  baseUrl: string;
  apiKey: string;
  /** Set when this run started the service itself. */
  started: { pid: number; msToHealthy: number; printedKey: string } | null;
}

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

export async function startNpmStart(
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; key: string; msToHealthy: number; output: () => string }> {
  const started = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  // Generous: on a loaded 2-core machine the set-up, tsx and the workers' warm-up take their time.
  const deadline = Date.now() + 180_000;
  let url: string | null = null;
  let key: string | null = null;
  while (Date.now() < deadline) {
    url ??= /running at (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? null;
    key ??= /API key\s+(inc_key_\w+)/.exec(output)?.[1] ?? null;
    if (url) {
      try {
        const res = await fetch(`${url}/api/v2/health`);
        if (res.status === 200 && key) return { child, url, key, msToHealthy: performance.now() - started, output: () => output };
      } catch {
        // not listening yet
      }
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  stopProcessGroup(child);
  throw new Error(`npm start did not become healthy:\n${output}`);
}

/**
 * Ctrl-C to the child's process group, then SIGKILL once `graceMs` has passed. A test that asserts the
 * graceful stop gives a generous grace: on a loaded machine the stop takes longer than it does quiet.
 */
export function stopProcessGroup(child: ChildProcess, { graceMs = 10_000 }: { graceMs?: number } = {}): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid, "SIGINT");
    } catch {
      resolve();
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }, graceMs).unref();
  });
}

export const randomSuffix = () => randomBytes(4).toString("hex");

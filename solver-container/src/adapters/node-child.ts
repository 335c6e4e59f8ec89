/**
 * Entry of the Node child that runs a solver written in TypeScript (jaos, HiGHS-wasm), so the worker's
 * kill switch can stop it like any other solver: the engine's loop may block its thread for minutes.
 *
 * stdin: one JSON object { module, exportName, problem, settings, resultPath }.
 * stdout: progress lines { "event": "progress", incumbent, bound, nodes }.
 * The result goes to `resultPath` (write, then rename), so a half-written result is never read.
 *
 * `--standby <module> <export>`: a child started ahead of its solve that serves several. It imports the
 * engine and runs the engine's warm-up (V8 compiles the hot code while the worker is idle), prints
 * { "event": "ready" }, then reads requests one JSON line at a time; after each it writes the result and
 * prints { "event": "done", "rssMb" }, and waits for the next until stdin closes. The code V8 compiled on one solve
 * serves the next (node-engine.ts decides how many a child serves).
 */
import { rename, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import { deletionFilter, type FeasibilityOracle, infeasibilityOf, searchDeadlineMs, verdictOf } from "../../../functions/core/solvers/iis/index.js";
import { emptyResult, type Infeasibility, type SolveSettings } from "../../../functions/core/solvers/types.js";
import type { AdapterResult, TypeScriptEngine } from "./types.js";

interface ChildRequest {
  module: string;
  exportName: string;
  problem: Problem;
  settings: SolveSettings;
  resultPath: string;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function loadEngine(modulePath: string, exportName: string): Promise<TypeScriptEngine> {
  const mod = (await import(pathToFileURL(modulePath).href)) as Record<string, TypeScriptEngine | undefined>;
  const engine = mod[exportName];
  if (!engine) throw new Error(`${modulePath} has no export "${exportName}"`);
  return engine;
}

async function standBy(modulePath: string, exportName: string, requestArrived: () => boolean): Promise<void> {
  try {
    await (await loadEngine(modulePath, exportName)).warmUp?.(requestArrived);
  } catch (err) {
    // A failed warm-up costs speed, not correctness: the solve loads the engine again and reports.
    process.stderr.write(`warm-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.stdout.write(`${JSON.stringify({ event: "ready" })}\n`);
}

/**
 * An infeasible LP's deletion filter with the engine itself as the oracle, in this child: a child per
 * re-solve would cost a Node start each (about a second), the re-solves of an LP milliseconds. The
 * adapter's checker verifies the answer afterwards with another solver (explain.ts).
 */
async function filterInChild(engine: TypeScriptEngine, problem: Problem, settings: SolveSettings): Promise<Infeasibility> {
  const oracle: FeasibilityOracle = async (sub, seconds) =>
    verdictOf(sub, await engine.solve(sub, { timeLimitSeconds: seconds, gapTolerance: 1, threads: settings.threads }, () => undefined));
  const found = await deletionFilter(problem, oracle, { deadlineMs: searchDeadlineMs(settings.timeLimitSeconds, Date.now()) });
  if (found.start === "feasible") {
    // The engine's own re-solve found a checked point of the whole model: its verdict was wrong. The
    // parent (explain.ts) names the solver.
    const verdict_check = { status: "refuted", solver: null, message: "the solver's re-solve found a point of the whole model" } as const;
    return infeasibilityOf(problem, [], { method: "deletion_filter", irreducible: false, verified: false, verdict_check });
  }
  return infeasibilityOf(problem, found.members, { method: "deletion_filter", irreducible: found.irreducible, verified: null });
}

/** One request: the engine's solve (and an infeasible LP's explanation), its result written, then renamed. */
async function serveRequest(request: ChildRequest): Promise<void> {
  let result: AdapterResult;
  try {
    const engine = await loadEngine(request.module, request.exportName);
    let lastLine = "";
    result = await engine.solve(request.problem, request.settings, (progress) => {
      const line = JSON.stringify({ event: "progress", ...progress });
      if (line !== lastLine) process.stdout.write(`${line}\n`);
      lastLine = line;
    });
    if (request.settings.explainInfeasibility && result.solver_status === "infeasible" && !hasIntegers(request.problem)) {
      result.infeasibility = await filterInChild(engine, request.problem, request.settings);
    }
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    result = { ...emptyResult("error", message), settings_applied: null };
  }
  const tmp = `${request.resultPath}.tmp${process.pid}`;
  await writeFile(tmp, JSON.stringify(result));
  await rename(tmp, request.resultPath);
}

/** The standby's loop: warm up until the first request line arrives, then serve each line until stdin closes. */
async function serveLines(modulePath: string, exportName: string): Promise<void> {
  const pending: string[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    pending.push(line);
    wake?.();
  });
  lines.on("close", () => {
    ended = true;
    wake?.();
  });
  await standBy(modulePath, exportName, () => pending.length > 0 || ended);
  for (;;) {
    while (pending.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    const line = pending.shift();
    if (line === undefined) return;
    await serveRequest(JSON.parse(line) as ChildRequest);
    // The resident set after the solve: the parent serves no further solve from a child grown large.
    process.stdout.write(`${JSON.stringify({ event: "done", rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20) })}\n`);
  }
}

async function main(): Promise<void> {
  const [mode, modulePath, exportName] = process.argv.slice(2);
  if (mode === "--standby" && modulePath && exportName) return serveLines(modulePath, exportName);
  // A child spawned for its solve: one request, the whole of stdin.
  await serveRequest(JSON.parse(await readStdin()) as ChildRequest);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

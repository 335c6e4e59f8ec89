/**
 * `npm run bench -- race [--solvers highs,glpk,jaos] [--candidates p0201,vpm1,…] [--instance set1ch]
 *  [--probe-limit 60] [--limit 300] [--ratio 5] [--pin]`: issue 29's first acceptance point, measured on the
 * local stack with one worker per solver.
 *
 *  1. A solo pass (each solver alone, a plain solve through the API) over the scale set's MILPs in
 *     `--candidates` order, until one where the fastest solver's verified optimum comes at least `--ratio`
 *     times sooner than the next solver's (a wrong or missing optimum counts at the probe limit).
 *     `--instance` skips the search and takes that one.
 *  2. The race of every solver on it, then the fastest solver alone once more (so the fastest's time is
 *     the mean of two solo runs, one before and one after the race, on the machine as loaded then).
 *  3. It prints race time ÷ fastest solo time; when the winner started and how long it solved inside the race; for each loser how long its stop took (from the winner's
 *     cancel request, `cancel_requested_at`, to its execution's end) and its row; how long the race's
 *     answer came after the winner's end (what waiting for the losers' rows costs); and whether every
 *     worker is idle again (by the heartbeats' state) and how soon.
 *  4. With `--pin`, steps 2 and 3 again on a second stack whose workers are each pinned to a core of
 *     their own (taskset; worker i on core i, so it needs as many cores as solvers: on two cores,
 *     `--solvers highs,jaos --pin`), solo runs included, and both ratios side by side. Unpinned, the
 *     entrants share the cores with each other (and with whatever else runs), so the winner's solve is
 *     slower inside the race than alone; pinned, each entrant has its core as a worker of the fleet has
 *     its task's, which is what "in about its own time" asks of the race.
 * Side by side in one run: compare ratios, not seconds, on a loaded machine.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import type { ExecutionRecord } from "../../functions/core/executions/store.js";
import { type ManifestEntry, objectiveMatches, readInstance, readManifest, SCALE_DIR } from "../support/manifest.js";
import { startTestStack } from "../support/test-stack.js";
import { table } from "./_stats.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const DEFAULT_CANDIDATES = "p0201,vpm1,stein45,mod008,misc07,pp08a,bell3a,set1ch,khb05250,p0282,fixnet6,modglob,rout,10teams";

export default async function race(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      solvers: { type: "string", default: "highs,glpk,jaos" },
      candidates: { type: "string", default: DEFAULT_CANDIDATES },
      instance: { type: "string" },
      "probe-limit": { type: "string", default: "60" },
      limit: { type: "string", default: "300" },
      ratio: { type: "string", default: "5" },
      pin: { type: "boolean", default: false },
    },
  });
  const solvers = values.solvers.split(",");
  const probeLimit = Number(values["probe-limit"]);
  const limit = Number(values.limit);
  const wantedRatio = Number(values.ratio);
  const milps = readManifest(SCALE_DIR).filter((e) => e.kind === "MILP");
  const named = (values.instance ?? values.candidates).split(",");
  const candidates = named.map((n) => milps.find((e) => e.file === `${n}.mps`)).filter((e): e is ManifestEntry => e !== undefined);
  if (values.pin && solvers.length > availableParallelism()) {
    throw new Error(
      `--pin puts each worker on a core of its own: ${solvers.length} solvers need ${solvers.length} cores, this machine has ${availableParallelism()}`,
    );
  }
  const stack = await startBenchStack(solvers.length, limit, false);
  let measured: { chosen: Chosen; unpinned: RaceMeasure } | null = null;
  try {
    await stack.workers.ready();
    const probes: (string | number)[][] = [];
    let chosen: Chosen | null = null;
    for (const entry of candidates) {
      const problem = (await stack.api.post("/api/v2/solve/import/preview", { content: readInstance(entry), filename: entry.file })).body.problem;
      const alone: Record<string, number> = {};
      for (const solver of solvers) alone[solver] = (await solo(stack, entry, problem, solver, probeLimit)) ?? probeLimit;
      const [fastest, next] = Object.values(alone).sort((a, b) => a - b);
      const ratio = next! / fastest!;
      probes.push([entry.file, ...solvers.map((s) => alone[s]!), ratio]);
      console.error(`solo pass: ${entry.file} ${solvers.map((s) => `${s} ${alone[s]!.toFixed(2)} s`).join(", ")}; next / fastest ${ratio.toFixed(1)}`);
      if (values.instance || (fastest! < probeLimit && ratio >= wantedRatio)) {
        chosen = { entry, problem, alone };
        break;
      }
    }
    console.log("Solo pass (s; a wrong or missing optimum counts at the probe limit):\n");
    console.log(table(["instance", ...solvers.map((s) => `${s} alone`), "next / fastest"], probes));
    if (!chosen) {
      console.log(`\nNo candidate where the fastest is ${wantedRatio}x faster than the next; try --candidates or --solvers.`);
      return;
    }
    measured = { chosen, unpinned: await raceOn(stack, chosen, { solvers, limit }) };
  } finally {
    await stack.stop();
  }
  if (!values.pin || !measured) return;
  const { chosen, unpinned } = measured;
  const pinnedStack = await startBenchStack(solvers.length, limit, true);
  try {
    console.log(`\nPinned: each worker on a core of its own (taskset; worker i on core i)`);
    await pinnedStack.workers.ready();
    console.log(`CPUs allowed (worker: its solver processes): ${pinnedStack.workers.pids().map(affinityTree).join("; ")}`);
    // The fastest alone on the pinned stack first: its "before" solo run, as the search pass gave the unpinned one.
    const fastestSolver = fastestOf(chosen.alone);
    const before = (await solo(pinnedStack, chosen.entry, chosen.problem, fastestSolver, limit)) ?? limit;
    const pinned = await raceOn(pinnedStack, { ...chosen, alone: { [fastestSolver]: before } }, { solvers, limit });
    console.log(`\nrace / fastest alone on ${chosen.entry.file}: unpinned ${unpinned.ratio.toFixed(2)}, pinned ${pinned.ratio.toFixed(2)}`);
    console.log(
      table(
        ["workers", "race s", `${fastestSolver} alone s`, "race / fastest", "winner's solve in the race s"],
        [
          ["unpinned", unpinned.raceSeconds, unpinned.fastestSeconds, unpinned.ratio, unpinned.winnerSolveSeconds ?? "—"],
          ["pinned", pinned.raceSeconds, pinned.fastestSeconds, pinned.ratio, pinned.winnerSolveSeconds ?? "—"],
        ],
      ),
    );
  } finally {
    await pinnedStack.stop();
  }
}

/** The instance the solo pass chose, its problem, and each solver's time alone. */
interface Chosen {
  entry: ManifestEntry;
  problem: unknown;
  alone: Record<string, number>;
}

/** One race measured against the fastest solver alone on the same stack. */
interface RaceMeasure {
  raceSeconds: number;
  fastestSeconds: number;
  ratio: number;
  /** The winner's own solve inside the race (its start → its end on its worker). */
  winnerSolveSeconds: number | null;
}

/** A process's allowed CPUs and its children's (Linux /proc), to show that the pin reached the solvers' processes. */
function affinityTree(pid: number): string {
  const allowed = (p: string) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? "?";
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return `${pid} on ${allowed(String(pid))}: ${children.map((c) => `${c} on ${allowed(c)}`).join(", ") || "none yet"}`;
  } catch {
    return `${pid}: unknown`;
  }
}

const fastestOf = (alone: Record<string, number>): string => Object.entries(alone).sort((a, b) => a[1] - b[1])[0]![0];

/** The local stack with one worker per solver; `pinned`: worker i may run on core i only (taskset). */
function startBenchStack(workers: number, limit: number, pinned: boolean): Promise<Stack> {
  return startTestStack({
    env: {
      INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
      LOCAL_WORKERS: String(workers),
      ORG_MAX_RUNNING_JOBS: String(workers),
      SOLVE_WAIT_SECONDS: String(limit + 30),
    },
    ...(pinned ? { workerCpuAffinity: (index: number) => String(index) } : {}),
  });
}

/** One solver alone: the wall time of a plain solve when it returned the manifest's optimum, else null. */
async function solo(stack: Stack, entry: ManifestEntry, problem: unknown, solver: string, limit: number): Promise<number | null> {
  await allIdle(stack, Date.now());
  const started = performance.now();
  const res = await stack.api.post("/api/v2/solve", { problem, solver_name: solver, settings: { time_limit_seconds: limit } });
  const seconds = (performance.now() - started) / 1000;
  const right = res.body.status === "optimal" && objectiveMatches(res.body.objective_value, entry.expectedObjective ?? Number.NaN, 1e-4);
  return right ? seconds : null;
}

async function raceOn(stack: Stack, { entry, problem, alone }: Chosen, { solvers, limit }: { solvers: string[]; limit: number }): Promise<RaceMeasure> {
  // Every worker idle first: a worker whose last job's end is not yet in its heartbeat counts as busy, and its solver would not enter.
  await allIdle(stack, Date.now());
  const started = performance.now();
  const res = await stack.api.post("/api/v2/solve", { problem, solver_name: "race", race: { solvers }, settings: { time_limit_seconds: limit } });
  const raceSeconds = (performance.now() - started) / 1000;
  const answered = Date.now();
  const idleAfter = await allIdle(stack, answered);
  const fastestSolver = fastestOf(alone);
  const again = (await solo(stack, entry, problem, fastestSolver, limit)) ?? limit;
  const fastest = (alone[fastestSolver]! + again) / 2;

  const orgId = stack.bootstrap.organizationId;
  const record = (id: string) => stack.services.executionStore.get(orgId, id) as Promise<ExecutionRecord | null>;
  const raceRecord = await record(res.body.execution_id);
  const entrants = (res.body.race?.entrants ?? []) as {
    solver: string;
    state: string;
    execution_id: string;
    objective_value: number | null;
    best_bound: number | null;
  }[];
  const rows: (string | number)[][] = [];
  let winnerEnd: number | null = null;
  let winnerSolve: number | null = null;
  let winnerWait: number | null = null;
  for (const e of entrants) {
    const r = await record(e.execution_id);
    const end = r?.completed_at ? Date.parse(r.completed_at) : null;
    if (e.state === "won") {
      winnerEnd = end;
      if (r?.started_at && end !== null && raceRecord) {
        winnerSolve = (end - Date.parse(r.started_at)) / 1000;
        winnerWait = (Date.parse(r.started_at) - Date.parse(raceRecord.created_at)) / 1000;
      }
    }
    const asked = r?.cancel_requested_at ? Date.parse(r.cancel_requested_at) : null;
    const stop = asked !== null && end !== null ? (end - asked) / 1000 : "—";
    rows.push([e.solver, e.state, r?.status ?? "—", e.objective_value ?? "—", e.best_bound ?? "—", stop]);
  }
  const raceEnd = raceRecord?.completed_at ? Date.parse(raceRecord.completed_at) : null;
  const optimum = res.body.status === "optimal" && objectiveMatches(res.body.objective_value, entry.expectedObjective ?? Number.NaN, 1e-4);

  console.log(`\nThe race on ${entry.file} (${solvers.join(", ")}), ${res.body.race?.winner ?? "no"} winner, verified optimum: ${optimum}\n`);
  console.log(table(["entrant", "row", "execution", "incumbent", "bound", "stop s (cancel request → end)"], rows));
  console.log(
    `\nrace ${raceSeconds.toFixed(2)} s; ${fastestSolver} alone ${fastest.toFixed(2)} s (mean of ${alone[fastestSolver]!.toFixed(2)} before, ${again.toFixed(2)} after)` +
      `; race / fastest ${(raceSeconds / fastest).toFixed(2)}`,
  );
  if (winnerSolve !== null && winnerWait !== null) {
    console.log(`the winner started ${winnerWait.toFixed(2)} s after the race's launch and took ${winnerSolve.toFixed(2)} s on its worker (start → end)`);
  }
  if (raceEnd !== null && winnerEnd !== null) console.log(`the race's answer came ${((raceEnd - winnerEnd) / 1000).toFixed(2)} s after the winner's end`);
  console.log(idleAfter === null ? "a worker was still busy 30 s after the answer" : `every worker idle ${idleAfter.toFixed(2)} s after the answer`);
  return { raceSeconds, fastestSeconds: fastest, ratio: raceSeconds / fastest, winnerSolveSeconds: winnerSolve };
}

/** Seconds after `since` until every live worker's heartbeat says idle (null: not within 30 s). */
async function allIdle(stack: Stack, since: number): Promise<number | null> {
  while (Date.now() - since < 30_000) {
    const workers = await stack.services.workerHeartbeats.list();
    const live = workers.filter((w) => !w.stopped_at);
    if (live.length > 0 && live.every((w) => w.state === "idle")) return (Date.now() - since) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

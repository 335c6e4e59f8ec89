import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IncumbentClient, unwrap } from "../../clients/typescript/src/index.js";
import { EXIT } from "../../clients/typescript/src/cli/exit-codes.js";
import { writeMps } from "../../functions/core/problem/mps-writer.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { INFEASIBLE_LP, KNAPSACK_MPS, UNBOUNDED_LP } from "../support/client-models.js";
import { REPO_ROOT } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";
import { startTestStack } from "../support/test-stack.js";
import { eventually, KNAPSACK_DATA, KNAPSACK_SOURCE } from "../support/triggers.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const BIN = path.join(REPO_ROOT, "clients/typescript/bin/incumbent.mjs");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `incumbent ARGS` as a user's shell would (its own process, output captured, no terminal). */
function cli(args: string[], env: Record<string, string | undefined>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The same in a pseudo-terminal (util-linux `script`, sized as a terminal window is), where the
 * progress line is redrawn in place by log-update instead of appended.
 */
function cliInTerminal(args: string[], env: Record<string, string | undefined>): Promise<Ran> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", `stty rows 40 cols 160; ${quoted}`, "/dev/null"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr: "" }));
  });
}

/**
 * A proxy in front of the stack that answers every event stream with an empty one, as a proxy that
 * buffers and times out Server-Sent Events does; every other request passes through.
 */
async function streamCuttingProxy(upstream: string): Promise<{ url: string; streams: number; close: () => Promise<void> }> {
  const state = { streams: 0 };
  const server = http.createServer(async (req, res) => {
    if (req.url?.endsWith("/events")) {
      state.streams++;
      res.writeHead(200, { "content-type": "text/event-stream" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && k !== "host" && k !== "content-length"),
    ) as Record<string, string>;
    const answer = await fetch(upstream + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => k !== "content-encoding" && k !== "content-length")));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get streams() {
      return state.streams;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The `incumbent` command line against the local stack: verdicts as exit codes, live output captured. */
describe("the incumbent CLI", () => {
  let stack: Stack;
  let dir: string;
  let env: Record<string, string>;
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    stack = await startTestStack({ env: { MODELS_READ_RATE_LIMIT_PER_MINUTE: "0", INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } });
    dir = mkdtempSync(path.join(tmpdir(), "incumbent-cli-"));
    writeFileSync(file("knapsack.mps"), KNAPSACK_MPS);
    writeFileSync(file("infeasible.lp"), INFEASIBLE_LP);
    writeFileSync(file("unbounded.lp"), UNBOUNDED_LP);
    // Market split: no solver here closes it in a minute, so a short limit stops it with progress on the way.
    writeFileSync(file("market-split.mps"), writeMps(ProblemSchema.parse(marketSplitProblem(6, 50, 7))).text);
    env = { INCUMBENT_URL: stack.url, INCUMBENT_API_KEY: stack.apiKey, XDG_CONFIG_HOME: path.join(dir, "config") };
  });
  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("solves a file with --watch: live progress on stderr, the verdict on stdout, exit 0 for optimal", async () => {
    const ran = await cli(["solve", file("knapsack.mps"), "--solver", "highs", "--watch"], env);
    expect(ran.code, ran.stderr).toBe(EXIT.optimal);
    expect(ran.stderr).toMatch(/^highs {2}queued {2}elapsed \d+\.\d s$/m);
    expect(ran.stdout).toMatch(/^exe_\S+ {2}optimal {2}\(highs/m);
    expect(ran.stdout).toMatch(/objective -9 /);
  });

  it("runs the README's quick start on the repository's own compressed examples: flugpl.mps.gz optimal with live progress (exit 0), galenet.mps.gz infeasible (exit 3)", async () => {
    const example = (name: string) => path.join(REPO_ROOT, "examples", name);
    const solved = await cli(["solve", example("flugpl.mps.gz"), "--solver", "highs", "--watch"], env);
    expect(solved.code, solved.stderr).toBe(EXIT.optimal);
    expect(solved.stderr).toMatch(/^highs {2}(queued|running)/m);
    expect(solved.stdout).toMatch(/^exe_\S+ {2}optimal {2}\(highs/m);
    const infeasible = await cli(["solve", example("galenet.mps.gz"), "--solver", "highs"], env);
    expect(infeasible.code, infeasible.stderr + infeasible.stdout).toBe(EXIT.infeasible);
  });

  it("shows incumbent, bound and gap while a search runs, and exits 5 when the time limit stops it", async () => {
    const ran = await cli(["solve", file("market-split.mps"), "--solver", "highs", "--time-limit", "3", "--watch"], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(EXIT.time_limit);
    expect(ran.stderr).toMatch(/^highs {2}running {2}incumbent \S+ {2}bound \S+ {2}gap \S+ .*elapsed \d+\.\d s$/m);
    expect(ran.stdout).toMatch(/ time_limit /);
  });

  it("redraws the progress line in place on a terminal", async () => {
    const ran = await cliInTerminal(["solve", file("market-split.mps"), "--solver", "highs", "--time-limit", "2", "--watch"], env);
    expect(ran.code, ran.stdout).toBe(EXIT.time_limit);
    // log-update erases the previous line (ESC[2K, cursor up) before each new frame.
    const redraws = ran.stdout.split("\x1b[1A\x1b[2K").length - 1;
    expect(redraws).toBeGreaterThan(2);
    expect(ran.stdout).toMatch(/highs {2}running {2}incumbent \S+ {2}bound \S+ {2}gap /);
    expect(ran.stdout).toMatch(/exe_\S+ {2}time_limit/);
  });

  it("falls back to waiting for the result when every event stream is cut before its end", async () => {
    const proxy = await streamCuttingProxy(stack.url);
    try {
      const ran = await cli(["solve", file("knapsack.mps"), "--solver", "highs", "--watch"], { ...env, INCUMBENT_URL: proxy.url });
      expect(ran.code, ran.stderr).toBe(EXIT.optimal);
      expect(ran.stderr).toMatch(/the event stream ended 4 times before its final event; waiting for the result instead/);
      expect(ran.stdout).toMatch(/ optimal /);
      expect(proxy.streams).toBe(4);
    } finally {
      await proxy.close();
    }
  });

  it("exits with the infeasible and unbounded codes", async () => {
    const infeasible = await cli(["solve", file("infeasible.lp"), "--solver", "highs"], env);
    expect(infeasible.code, infeasible.stderr).toBe(EXIT.infeasible);
    expect(infeasible.stdout).toMatch(/ infeasible /);
    const unbounded = await cli(["solve", file("unbounded.lp"), "--solver", "highs"], env);
    expect(unbounded.code, unbounded.stderr).toBe(EXIT.unbounded);
  });

  it("compares with --watch: a table that fills row by row, then the final table; --json gives the comparison", async () => {
    const ran = await cli(["compare", file("knapsack.mps"), "--solvers", "highs,jaos", "--watch"], env);
    expect(ran.code, ran.stderr).toBe(EXIT.optimal);
    // The captured frames: the table with no row finished, then with rows finished one by one.
    const frames = ran.stderr.split(/^(?=cmp_)/m).filter((f) => f.startsWith("cmp_"));
    const optimalRows = frames.map((f) => (f.match(/│ optimal/g) ?? []).length);
    expect(optimalRows[0]).toBe(0);
    expect(optimalRows.at(-1)).toBe(2);
    expect(optimalRows).toEqual([...optimalRows].sort((a, b) => a - b));
    expect(ran.stdout).toMatch(/│ highs +│ completed +│ optimal +│ -9 /);
    expect(ran.stdout).toMatch(/│ jaos +│ completed +│ optimal +│ -9 /);
    expect(ran.stdout).toMatch(/objectives agree: yes/);

    const asJson = await cli(["--json", "compare", file("knapsack.mps"), "--solvers", "highs,glpk"], env);
    expect(asJson.code, asJson.stderr).toBe(EXIT.optimal);
    const detail = JSON.parse(asJson.stdout);
    expect(detail.results.map((r: { solver_status: string }) => r.solver_status)).toEqual(["optimal", "optimal"]);
  });

  it("recommends a solver for a file (its stats as the service reads them) and says why auto chose after an auto solve", async () => {
    const text = await cli(["recommend", file("knapsack.mps")], env);
    expect(text.code, text.stderr).toBe(EXIT.optimal);
    expect(text.stdout).toMatch(/^auto would run (highs|cbc|glpk|scip|jaos)$/m);
    expect(text.stdout).toMatch(/^basis: /m);
    const asJson = await cli(["--json", "recommend", file("knapsack.mps")], env);
    const recommendation = JSON.parse(asJson.stdout);
    expect(recommendation.ranking.length).toBeGreaterThan(0);
    expect(recommendation.ranking.map((r: { solver: string }) => r.solver)).toContain(recommendation.solver);

    const auto = await cli(["solve", file("knapsack.mps")], env);
    expect(auto.code, auto.stderr).toBe(EXIT.optimal);
    expect(auto.stdout).toMatch(/^auto chose \w+: \S/m);
  });

  // Needs the race backend (branch race): on the contract alone the service refuses to run a race.
  it("races highs and cbc with --race --watch: each entrant's row while it runs, then the final rows with the winner", async () => {
    const ran = await cli(["solve", file("knapsack.mps"), "--race", "highs,cbc", "--watch"], env);
    expect(ran.code, ran.stderr + ran.stdout).toBe(EXIT.optimal);
    expect(ran.stderr).toMatch(/│ (highs|cbc) +│ (queued|running|won|finished|cancelled) /);
    expect(ran.stdout).toMatch(/^exe_\S+ {2}optimal /m);
    expect(ran.stdout).toMatch(/│ (highs|cbc) \* +│ won +│ optimal +│ -9 /);
    expect(ran.stdout).toMatch(/^winner: (highs|cbc) /m);
    const asJson = JSON.parse((await cli(["--json", "solve", file("knapsack.mps"), "--race"], env)).stdout);
    expect(asJson.race.winner).not.toBeNull();
    // Two entrants, or one when the race degraded (fewer than two free workers) and says so.
    expect(asJson.race.entrants.length >= 2 || asJson.race.degraded).toBe(true);
  });

  it("reads an execution's status and log, as text and as JSON", async () => {
    const solved = await cli(["--json", "solve", file("knapsack.mps"), "--solver", "highs"], env);
    expect(solved.code, solved.stderr).toBe(EXIT.optimal);
    const view = JSON.parse(solved.stdout);
    expect(view.result.status).toBe("optimal");

    const status = await cli(["status", view.id], env);
    expect(status.code).toBe(EXIT.optimal);
    expect(status.stdout).toContain(`${view.id}  optimal`);
    const log = await cli(["log", view.id], env);
    expect(log.code, log.stderr).toBe(0);
    const lines = log.stdout === "" ? [] : log.stdout.replace(/\n$/, "").split("\n");
    const logged = await unwrap(
      new IncumbentClient({ baseUrl: stack.url, credential: stack.apiKey }).api.GET("/api/v2/models/executions/{execution_id}/log", {
        params: { path: { execution_id: view.id }, query: {} },
      }),
    );
    expect(lines).toEqual(logged.lines);
    const missing = await cli(["status", "exe_missing"], env);
    expect(missing.code).toBe(EXIT.error);
    expect(missing.stderr).toMatch(/HTTP 404, not_found/);
  });

  it("lists triggers, fires one with its secret and lists its runs", async () => {
    const client = new IncumbentClient({ baseUrl: stack.url, credential: stack.apiKey });
    const document = await unwrap(
      client.api.POST("/api/v2/documents", {
        body: { name: "knapsack", model: { kind: "jmodel", source: KNAPSACK_SOURCE, data: KNAPSACK_DATA }, solver_name: "highs" },
      }),
    );
    const trigger = await unwrap(
      client.api.POST("/api/v2/triggers", {
        body: {
          name: "cli nightly",
          document_id: document.id,
          version_id: document.version_id,
          override_schema: [{ name: "capacity", type: "number", required: false, default: 5 }],
        },
      }),
    );
    const list = await cli(["trigger", "list"], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`│ ${trigger.id} +│ cli nightly +│ enabled`));

    // A fire takes the trigger's secret, not the API key: none is given here.
    const fireEnv = { INCUMBENT_URL: stack.url, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, INCUMBENT_TRIGGER_SECRET: trigger.trigger_secret };
    const fired = await cli(["--json", "trigger", "fire", trigger.id, "--data", '{"capacity": 9}'], fireEnv);
    expect(fired.code, fired.stderr).toBe(0);
    const { run_id } = JSON.parse(fired.stdout);
    const wrong = await cli(["trigger", "fire", trigger.id, "--secret", "inc_trg_wrong"], fireEnv);
    expect(wrong.code).toBe(EXIT.error);
    expect(wrong.stderr).toMatch(/HTTP 401/);
    const badData = await cli(["trigger", "fire", trigger.id, "--data", "[1]"], fireEnv);
    expect(badData.code).toBe(EXIT.usage);

    const runs = await eventually(
      async () => JSON.parse((await cli(["--json", "trigger", "runs", trigger.id], env)).stdout),
      (page: { items: { id: string; status: string; result_data: { objective_value?: number } | null }[] }) =>
        page.items.some((r) => r.id === run_id && r.status === "completed"),
      { timeoutMs: 60_000, everyMs: 500 },
    );
    expect(runs.items.find((r) => r.id === run_id)?.result_data?.objective_value).toBe(12);
    const text = await cli(["trigger", "runs", trigger.id], env);
    expect(text.stdout).toMatch(new RegExp(`│ ${run_id} +│ completed +│ optimal +│ 12 `));
  });

  it("logs in (saved for its owner only), lists and creates keys, and says what is missing", async () => {
    const bare = { XDG_CONFIG_HOME: path.join(dir, "login-config") };
    const nothing = await cli(["keys"], bare);
    expect(nothing.code).toBe(EXIT.usage);
    expect(nothing.stderr).toMatch(/No service URL/);

    const login = await cli(["login", "--url", stack.url, "--api-key", stack.apiKey], bare);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/Signed in to .* as owner@example\.test/);
    const saved = path.join(bare.XDG_CONFIG_HOME, "incumbent", "config.json");
    expect(statSync(saved).mode & 0o777).toBe(0o600);

    const keys = await cli(["keys"], bare);
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.stdout).toMatch(/│ active/);
    const created = await cli(["keys", "create", "ci"], bare);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/inc_key_\w+/);

    const refused = await cli(["login", "--url", stack.url, "--api-key", "inc_key_not_a_real_key_000000000000"], { XDG_CONFIG_HOME: path.join(dir, "other") });
    expect(refused.code).toBe(EXIT.error);
    expect(refused.stderr).toMatch(/HTTP 401/);
    const badSolver = await cli(["solve", file("knapsack.mps"), "--solver", "gurobi"], env);
    expect(badSolver.code).toBe(EXIT.usage);
    expect(badSolver.stderr).toMatch(/Allowed choices are auto, race, scip, highs, cbc, glpk, jaos/);
  });
});

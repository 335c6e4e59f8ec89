import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT } from "../../../../../../clients/typescript/src/cli/exit-codes.js";
import { main } from "../../../../../../clients/typescript/src/cli/main.js";
import { raceTable } from "../../../../../../clients/typescript/src/cli/race.js";
import type { Io } from "../../../../../../clients/typescript/src/cli/solve.js";
import { RecommendationSchema } from "../../../../../../functions/core/solvers/recommendation/schemas.js";
import { KNAPSACK_MPS } from "../../../../../support/client-models.js";
import { DEGRADED_RACE, RUNNING_RACE, raceExecutionView, WON_RACE } from "../../../../../support/race-views.js";

const URL_ = "http://service.test";

/** What the CLI wrote, as a captured stream (no terminal: frames are appended, not redrawn). */
function capture(): { io: Io; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const stream = (write: (s: string) => void) => ({ isTTY: false, write: (s: string) => (write(s), true) }) as unknown as NodeJS.WriteStream;
  return { io: { out: stream((s) => (out += s)), err: stream((s) => (err += s)) }, out: () => out, err: () => err };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * A service of recorded answers behind the global fetch the CLI's client uses: the preview the service
 * gives for the knapsack file, and what each test adds. Every request is kept for the test to read.
 */
function fakeService(routes: Record<string, (request: Request) => Response | Promise<Response>>) {
  const seen: { method: string; path: string; query: URLSearchParams; body: unknown }[] = [];
  vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const upload = url.pathname.endsWith("/preview") || url.pathname.endsWith("/import");
    const text = request.method === "POST" && !upload ? await request.clone().text() : "";
    seen.push({ method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : null });
    const key = `${request.method} ${url.pathname}`;
    if (key === "POST /api/v2/solve/import/preview") return json({ problem: { name: "knapsack" }, stats: KNAPSACK_STATS, format: "mps" });
    const answer = routes[key];
    return answer ? answer(request) : json({ error: { code: "not_found", message: key } }, 404);
  });
  return seen;
}

const KNAPSACK_STATS = {
  problem_class: "MILP",
  variable_count: 4,
  constraint_count: 1,
  integer_count: 0,
  binary_count: 4,
  nonzero_count: 4,
  quadratic_term_count: 0,
};

describe("incumbent solve --race and incumbent recommend, against recorded answers of the contract", () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "incumbent-race-cli-"));
    file = path.join(dir, "knapsack.mps");
    writeFileSync(file, KNAPSACK_MPS);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => vi.unstubAllGlobals());
  const run = (args: string[], io: Io) => main(["--url", URL_, "--api-key", "inc_key_test", ...args], io);

  it("the entrants' table marks the winner, names the rule that decided, and gives the note of a degraded race", () => {
    const won = raceTable(WON_RACE);
    expect(won).toMatch(/│ highs \* +│ won +│ optimal +│ -9 +│ -9 +│ 1\.20 /);
    expect(won).toMatch(/│ cbc +│ cancelled +│ feasible +│ -8 +│ -10 +│ 1\.20 /);
    expect(won).toMatch(/^winner: highs \(proven verdict\)$/m);
    expect(raceTable(RUNNING_RACE)).toMatch(/^racing…$/m);
    expect(raceTable(DEGRADED_RACE)).toMatch(/^degraded: only one worker was free: ran highs alone$/m);
  });

  it("--race highs,cbc --watch sends solver_name race with its entrants, follows each entrant's row, and ends with the winner and the verdict's exit code", async () => {
    const views = [raceExecutionView({ status: "running", race: RUNNING_RACE }), raceExecutionView({ status: "completed", race: WON_RACE })];
    let reads = 0;
    const seen = fakeService({
      "POST /api/v2/solve/async": () => json({ execution_id: "exe_race_fixture", status: "queued" }, 202),
      "GET /api/v2/models/executions/exe_race_fixture": () => json(views[Math.min(reads++, views.length - 1)]),
    });
    const { io, out, err } = capture();
    const code = await run(["solve", file, "--race", "highs,cbc", "--watch"], io);
    expect(code, err()).toBe(EXIT.optimal);
    const submitted = seen.find((r) => r.path === "/api/v2/solve/async")?.body as { solver_name: string; race: unknown };
    expect(submitted.solver_name).toBe("race");
    expect(submitted.race).toEqual({ solvers: ["highs", "cbc"] });
    // Live: the running frame with each entrant's incumbent, before the final rows.
    expect(err()).toMatch(/│ highs +│ running +│ - +│ -8 +│ -10 /);
    expect(err()).toMatch(/│ cbc +│ running +│ - +│ -7 +│ -11 /);
    expect(out()).toMatch(/^exe_race_fixture {2}optimal {2}\(highs/m);
    expect(out()).toMatch(/│ highs \* +│ won +│ optimal /);
    expect(out()).toMatch(/│ cbc +│ cancelled /);
    expect(out()).toMatch(/^winner: highs \(proven verdict\)$/m);
  });

  it("--race alone leaves the entrants to the service; --json prints the race's execution", async () => {
    const seen = fakeService({
      "POST /api/v2/solve/async": () => json({ execution_id: "exe_race_fixture", status: "queued" }, 202),
      "GET /api/v2/models/executions/exe_race_fixture": () => json(raceExecutionView({ status: "completed", race: DEGRADED_RACE })),
    });
    const { io, out, err } = capture();
    expect(await run(["--json", "solve", file, "--race"], io), err()).toBe(EXIT.optimal);
    const submitted = seen.find((r) => r.path === "/api/v2/solve/async")?.body as Record<string, unknown>;
    expect(submitted.solver_name).toBe("race");
    expect(submitted).not.toHaveProperty("race");
    expect(JSON.parse(out()).race).toEqual(DEGRADED_RACE);
  });

  it("refuses a race of one solver, or of one solver twice, as a usage error before anything is sent", async () => {
    const seen = fakeService({});
    for (const list of ["highs", "highs,highs"]) {
      const { io, err } = capture();
      expect(await run(["solve", file, "--race", list], io)).toBe(EXIT.usage);
      expect(err()).toMatch(/two or more different solvers/);
    }
    expect(seen).toEqual([]);
  });

  it("recommend FILE sends the file itself (auto judges its problem, numerics too) and prints the choice, its reason, evidence and ranking", async () => {
    const recommendation = RecommendationSchema.parse({
      solver: "highs",
      reason: "highs was fastest on 4 of the 5 nearest past MILPs (expected 0.21 s, cbc 0.9 s)",
      basis: "organization",
      evidence: { comparisons: 12, similar_problems: ["cmp_a", "cmp_b"] },
      ranking: [
        { solver: "highs", expected_seconds: 0.21, fastest_on: 4, runs: 5 },
        { solver: "cbc", expected_seconds: 0.9, fastest_on: 1, runs: 5 },
        { solver: "jaos", expected_seconds: null, fastest_on: 0, runs: 1 },
      ],
    });
    const sent: string[] = [];
    const seen = fakeService({
      "POST /api/v2/solvers/recommendation/import": async (request) => {
        sent.push(await ((await request.formData()).get("file") as File).text());
        return json(recommendation);
      },
    });
    const { io, out, err } = capture();
    expect(await run(["recommend", file], io), err()).toBe(EXIT.optimal);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/v2/solvers/recommendation/import"]);
    expect(sent).toEqual([KNAPSACK_MPS]);
    expect(out()).toMatch(/^auto would run highs$/m);
    expect(out()).toContain(recommendation.reason);
    expect(out()).toMatch(/^basis: your organization's comparisons; 12 comparison\(s\) read; similar: cmp_a, cmp_b$/m);
    expect(out()).toMatch(/│ highs \* +│ 0\.21 +│ 4 +│ 5 /);
    expect(out()).toMatch(/│ jaos +│ - +│ 0 +│ 1 /);

    const asJson = capture();
    fakeService({ "POST /api/v2/solvers/recommendation/import": () => json(recommendation) });
    expect(await run(["--json", "recommend", file], asJson.io)).toBe(EXIT.optimal);
    expect(JSON.parse(asJson.out())).toEqual(recommendation);
  });
});

import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type ExecutionView, ExecutionViewSchema } from "../../functions/core/executions/schemas.js";
import type { RaceEntrant, RaceView } from "../../functions/core/races/schemas.js";
import { machineHas } from "../support/machine.js";
import { instancePath, readInstance } from "../support/manifest.js";
import { TINY_LP } from "../support/models.js";
import { DEGRADED_RACE, raceExecutionView } from "../support/race-views.js";
import { colouredPixels, consoleHarness, expectAccessible, screenshot } from "./browser.js";

const ready = machineHas("chromium", "cbc");
const FINAL = new Set(["completed", "failed", "cancelled"]);

/** A small LP in CPLEX LP format, typed into the page key by key. */
const PASTED_LP = ["Maximize", " obj: x + 2 y", "Subject To", " c: x + y <= 5", "Bounds", " 0 <= x <= 4", " 0 <= y <= 3", "End"];

/**
 * The console's single solve (issue 29, Build 4): auto with the recommendation before and the reason
 * after, against the real stack; and a race. The race backend is built on its own branch, so the race
 * here is played by the test: the page's request to race is answered with real solves of each entrant
 * (their executions, streams and logs are the service's own), and the race's execution view is put
 * together from theirs in the contract's shape (parsed by its schema) — what the race backend answers.
 */
describe.runIf(ready)("the console's solve page: auto, its recommendation, and a race", () => {
  const harness = consoleHarness();

  const uploadForSolve = async (page: Page, instance: string) => {
    await page.getByLabel("Upload a file", { exact: true }).setInputFiles(instancePath(instance));
    await expect(page.getByTestId("preview")).toBeVisible();
    await page.getByRole("radio", { name: /^Solve once/ }).check();
  };

  /** The recommendation requests the page makes, as "METHOD path", in order. */
  const recordRecommendationRequests = (page: Page): string[] => {
    const asked: string[] = [];
    page.on("request", (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith("/api/v2/solvers/recommendation")) asked.push(`${r.method()} ${pathname}`);
    });
    return asked;
  };

  /** What the API's POST answers for the problem in this text, as the import preview reads it. */
  const postedRecommendation = async (content: string, filename?: string): Promise<{ problem: unknown; solver: string }> => {
    const preview = await harness.stack.api.post("/api/v2/solve/import/preview", { content, format: "auto", ...(filename ? { filename } : {}) });
    expect(preview.status).toBe(200);
    const recommended = await harness.stack.api.post("/api/v2/solvers/recommendation", { problem: preview.body.problem });
    expect(recommended.status).toBe(200);
    return { problem: preview.body.problem, solver: recommended.body.solver };
  };

  /** The panel names exactly this solver (a retrying assertion: the answer comes after the model settles). */
  const expectRecommended = (page: Page, solver: string) =>
    expect(page.getByTestId("recommended-solver").and(page.getByText(solver, { exact: true }))).toBeVisible();

  it("shows what auto would run for the uploaded problem, with its reason, evidence and ranking; after the solve, why auto chose", async () => {
    const page = await harness.openSignedIn();
    const asked = recordRecommendationRequests(page);
    await uploadForSolve(page, "afiro.mps");
    const reason = page.getByTestId("recommendation-reason");
    await expect(reason).toBeVisible();
    expect((await reason.textContent())?.trim().length, "a reason in words").toBeGreaterThan(10);
    // The file itself went to the import route, once; the panel names what the POST answers for its problem.
    expect(asked).toEqual(["POST /api/v2/solvers/recommendation/import"]);
    await expectRecommended(page, (await postedRecommendation(readInstance("afiro.mps"), "afiro.mps")).solver);
    const recommended = ((await page.getByTestId("recommended-solver").textContent()) ?? "").trim();
    await expect(page.locator(`table.ranking tr[data-solver="${recommended}"]`)).toBeVisible();
    await expect(page.locator(".recommendation dd.evidence")).toBeVisible();
    await expectAccessible(page, "solve with the recommendation");

    await expect(page.getByLabel("Run with", { exact: true })).toBeVisible();
    expect(await page.getByLabel("Run with", { exact: true }).inputValue()).toBe("auto");
    await page.getByRole("button", { name: "Solve", exact: true }).click();
    const verdict = page.locator("section.execution dd.verdict");
    await expect(verdict).toBeVisible();
    await expect.poll(async () => (await verdict.textContent())?.trim(), { timeout: 90_000, interval: 250 }).toBe("optimal");
    const autoReason = page.getByTestId("auto-reason");
    await expect(autoReason).toBeVisible();
    expect((await autoReason.textContent())?.trim().length).toBeGreaterThan(10);
    await expect(page.getByRole("heading", { name: /^Why auto chose \w+/ })).toBeVisible();
    await expectAccessible(page, "auto solve");
    await screenshot(page, "solve-auto");
  });

  it("asks once for a pasted problem, after it is read, by POSTing the problem itself; never on each keystroke", async () => {
    const page = await harness.openSignedIn();
    const asked = recordRecommendationRequests(page);
    const posted: unknown[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/api/v2/solvers/recommendation") posted.push(r.postDataJSON());
    });
    await page.getByRole("radio", { name: /^Solve once/ }).check();
    const text = PASTED_LP.join("\n");
    await page.getByLabel("Or paste it", { exact: true }).pressSequentially(text);
    expect(asked, "nothing asked while typing").toEqual([]);
    await page.getByLabel("Or paste it", { exact: true }).blur();
    await expect(page.getByTestId("preview")).toBeVisible();
    const expected = await postedRecommendation(text);
    await expectRecommended(page, expected.solver);
    expect(asked).toEqual(["POST /api/v2/solvers/recommendation"]);
    expect(posted).toEqual([{ problem: expected.problem }]);
  });

  it("drops the answer for a file replaced while it was asked: the request is aborted and the new file's answer shown", async () => {
    const page = await harness.openSignedIn();
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(`${new URL(r.url()).pathname} ${r.failure()?.errorText ?? ""}`));
    let arrived: () => void = () => {};
    const firstArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let seen = 0;
    await page.route("**/api/v2/solvers/recommendation/import", async (route: Route) => {
      if (seen++ > 0) return route.continue();
      // The first file's question is held until the second file has replaced it.
      arrived();
      await released;
      await route.continue().catch(() => undefined);
    });
    await page.getByRole("radio", { name: /^Solve once/ }).check();
    await page.getByLabel("Upload a file", { exact: true }).setInputFiles(instancePath("afiro.mps"));
    await firstArrived;
    await page.getByLabel("Upload a file", { exact: true }).setInputFiles(instancePath("flugpl.mps"));
    await expect(page.getByTestId("preview").getByText("MILP", { exact: true })).toBeVisible();
    await expect.poll(() => failed).toEqual(["/api/v2/solvers/recommendation/import net::ERR_ABORTED"]);
    release();
    await expectRecommended(page, (await postedRecommendation(readInstance("flugpl.mps"), "flugpl.mps")).solver);
    await expect(page.locator(".recommendation", { hasText: "for this MILP" })).toBeVisible();
    expect(seen, "one question per file").toBe(2);
  });

  it("races highs and cbc: each entrant's row and state, one chart of their incumbents and bounds, the winner highlighted", async () => {
    const page = await harness.openSignedIn();
    const raceId = "exe_race_played_by_the_test";
    const entrants: { solver: RaceEntrant["solver"]; execution_id: string }[] = [];
    let sentRace: unknown = null;
    await page.route("**/api/v2/solve/async", async (route: Route) => {
      const body = route.request().postDataJSON();
      if (body.solver_name !== "race") return route.continue();
      sentRace = body.race;
      for (const solver of body.race.solvers) {
        const queued = await harness.stack.api.post("/api/v2/solve/async", { problem: body.problem, settings: body.settings, solver_name: solver });
        entrants.push({ solver, execution_id: queued.body.execution_id });
      }
      return route.fulfill({ status: 202, contentType: "application/json", body: JSON.stringify({ execution_id: raceId, status: "queued" }) });
    });
    await page.route(`**/api/v2/models/executions/${raceId}`, async (route: Route) => {
      return route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(await racedView(raceId, entrants)) });
    });

    await uploadForSolve(page, "afiro.mps");
    await page.getByLabel("Run with", { exact: true }).selectOption("race");
    for (const solver of ["highs", "cbc"]) await page.getByRole("checkbox", { name: new RegExp(`^${solver}\\b`) }).check();
    await page.getByRole("button", { name: "Solve", exact: true }).click();

    const rows = page.locator("table.entrants tbody tr");
    await expect(rows.first()).toBeVisible();
    expect(sentRace).toEqual({ solvers: ["highs", "cbc"] });
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-solver")))).toEqual(["highs", "cbc"]);
    const winner = page.locator("table.entrants tr.winner");
    await expect(winner).toBeVisible({ timeout: 90_000 });
    const won = await winner.getAttribute("data-solver");
    expect(["highs", "cbc"]).toContain(won);
    await expect(page.getByTestId("race-winner")).toBeVisible();
    expect((await page.getByTestId("race-winner").textContent())?.trim()).toBe(won);
    expect(await winner.locator("td.state").textContent()).toBe("won");
    expect(await page.locator("table.entrants td.verdict").allTextContents()).toEqual(["optimal", "optimal"]);
    await expect(page.locator("section.execution dd.verdict", { hasText: "optimal" })).toBeVisible();
    // One chart, a line per entrant's incumbent (and bound where it has one), drawn on the canvas.
    const chart = page.locator('.race [data-chart="progress"]');
    await expect(chart).toBeVisible();
    await expect.poll(async () => Number(await chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
    expect(await chart.getAttribute("aria-label")).toMatch(/from 2 solvers/);
    expect(await colouredPixels(page, "progress"), "lines on the race chart").toBeGreaterThan(20);
    // Each entrant links to its own execution.
    await expect(page.getByRole("link", { name: `${won} execution` })).toBeVisible();
    await expectAccessible(page, "race");
    await screenshot(page, "solve-race");
  });

  it("a degraded race says why, with its one entrant as the winner", async () => {
    const entrant = (await harness.stack.api.post("/api/v2/solve/async", { problem: TINY_LP, solver_name: "highs" })).body.execution_id as string;
    const id = "exe_race_degraded_by_the_test";
    const race: RaceView = { ...DEGRADED_RACE, entrants: DEGRADED_RACE.entrants.map((e) => ({ ...e, execution_id: entrant })) };
    const page = await harness.openSignedIn();
    await page.route(`**/api/v2/models/executions/${id}`, (route: Route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(raceExecutionView({ id, status: "completed", race })) }),
    );
    await page.getByRole("link", { name: "Execution" }).click();
    await page.getByLabel("Execution id", { exact: true }).fill(id);
    await page.getByRole("button", { name: "Open" }).click();
    const note = page.getByTestId("race-note");
    await expect(note).toBeVisible();
    expect(await note.textContent()).toBe(`Degraded: ${DEGRADED_RACE.note}`);
    await expect(page.locator('table.entrants tr.winner[data-solver="highs"]')).toBeVisible();
    await expect(page.getByText(/decided by one solver alone/)).toBeVisible();
    await expectAccessible(page, "degraded race");
  });

  /**
   * The race's view from its entrants' real views, as the contract shapes it: running while any runs;
   * then the first to finish optimal wins, the other finished on its own.
   */
  async function racedView(id: string, entrants: { solver: RaceEntrant["solver"]; execution_id: string }[]): Promise<ExecutionView> {
    const views: ExecutionView[] = await Promise.all(
      entrants.map(async (e) => (await harness.stack.api.get(`/api/v2/models/executions/${e.execution_id}`)).body),
    );
    const allEnded = views.every((v) => FINAL.has(v.status));
    const byFinish = views.filter((v) => v.result?.status === "optimal").sort((a, b) => (a.completed_at ?? "").localeCompare(b.completed_at ?? ""));
    const winnerView = allEnded ? (byFinish[0] ?? null) : null;
    const race: RaceView = {
      winner: winnerView ? (entrants[views.indexOf(winnerView)]?.solver ?? null) : null,
      decided_by: winnerView ? "proven_verdict" : null,
      degraded: false,
      note: null,
      entrants: entrants.map((e, i) => {
        const v = views[i]!;
        const ended = allEnded && FINAL.has(v.status);
        return {
          solver: e.solver,
          execution_id: e.execution_id,
          state: ended ? (v === winnerView ? "won" : v.status === "completed" ? "finished" : "failed") : v.status === "queued" ? "queued" : "running",
          status: ended ? (v.result?.status ?? null) : null,
          objective_value: v.result?.objective_value ?? null,
          best_bound: v.result?.dual_bound ?? null,
          time_seconds: v.result?.solve_time_seconds ?? null,
        };
      }),
    };
    const base = winnerView ?? views[0]!;
    return ExecutionViewSchema.parse({
      ...base,
      id,
      status: allEnded ? (winnerView ? "completed" : "failed") : "running",
      solver_requested: "race",
      origin: { kind: "solve_async", id: null },
      auto_choice: null,
      race,
      completed_at: allEnded ? base.completed_at : null,
      result: winnerView?.result ? { ...winnerView.result, execution_id: id, race } : null,
    });
  }
});

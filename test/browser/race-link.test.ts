import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { TINY_LP } from "../support/models.js";
import { consoleHarness, expectAccessible } from "./browser.js";

const ready = machineHas("chromium");

/**
 * An entrant's execution page names its race and links to it (issue 29), against a race the stack really
 * ran: HiGHS against jaos on a tiny LP, one entrant per free worker. The link is followed as a user would,
 * and the race's own page — its board with the winner — is what opens.
 */
describe.runIf(ready)("the console's link from a race's entrant to its race", () => {
  const harness = consoleHarness();

  /** A hash route, as a link on the page sets it (the console keeps its key across in-page navigation). */
  const goToHash = (page: Page, hash: string) =>
    page.evaluate((h) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = h;
    }, hash);

  it("an entrant's page links to its race, and the link opens the race's page with its board", async () => {
    const raced = await harness.stack.api.post("/api/v2/solve", { problem: TINY_LP, solver_name: "race", race: { solvers: ["highs", "jaos"] } });
    expect(raced.status, raced.text).toBe(200);
    const raceId: string = raced.body.execution_id;
    expect(raced.body.race.winner).not.toBeNull();
    const entrant: { solver: string; execution_id: string } = raced.body.race.entrants[0];

    const page = await harness.openSignedIn();
    await goToHash(page, `#/executions/${entrant.execution_id}`);
    const section = page.locator("section.execution");
    await expect(section.locator("dt", { hasText: /^Race$/ })).toBeVisible();
    const link = section.getByRole("link", { name: raceId, exact: true });
    await expect(link).toBeVisible();
    expect(await link.getAttribute("href")).toBe(`#/executions/${raceId}`);
    // The entrant's own page shows no race board: it is one solver's execution.
    expect(await page.getByTestId("race-winner").count()).toBe(0);
    await expectAccessible(page, "a race's entrant");

    await link.click();
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash)).toBe(`#/executions/${raceId}`);
    const winner = page.getByTestId("race-winner");
    await expect(winner).toBeVisible();
    expect((await winner.textContent())?.trim()).toBe(raced.body.race.winner);
    // The race's page is not the entrant's: it names no race of its own to go back to.
    expect(await page.locator("section.execution dt", { hasText: /^Race$/ }).count()).toBe(0);
  });
});

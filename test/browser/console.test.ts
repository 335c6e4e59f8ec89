import { describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { instancePath } from "../support/manifest.js";
import { SUPPLY_JMODEL, SUPPLY_SHORT_DATA } from "../support/models.js";
import { createKnapsackDocument, KNAPSACK_BEST } from "../support/triggers.js";
import { TEST_OWNER } from "../support/test-stack.js";
import { colouredPixels, consoleHarness, expectAccessible, screenshot } from "./browser.js";

const ready = machineHas("chromium", "cbc", "glpsol");

const SUPPLY = { kind: "jmodel", source: SUPPLY_JMODEL, data: SUPPLY_SHORT_DATA };

describe.runIf(ready)("the web console in a real browser", () => {
  const harness = consoleHarness();
  const { open, signInWithKey } = harness;

  it("signs in with e-mail and password, creates a key shown once, revokes it, and signs out; every page passes axe", async () => {
    const page = await open();
    await expectAccessible(page, "sign in");
    // By keyboard alone: focus starts on the page's heading, Tab walks the form's fields in order, Enter submits.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe("Sign in");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe("email");
    await page.keyboard.type(TEST_OWNER.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(TEST_OWNER.password);
    await page.keyboard.press("Enter");
    await page.getByText(`Signed in as ${TEST_OWNER.email}`).waitFor();
    await expect(page.getByText("(session)")).toBeVisible();
    await expectAccessible(page, "compare");

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name", { exact: true }).fill("from the console");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = await page.locator("#new-key-value").inputValue();
    expect(shown.length).toBeGreaterThan(20);
    const row = page.locator("tr", { hasText: "from the console" });
    await row.getByText("active").waitFor();
    const prefix = (await row.locator("code").textContent()) ?? "";
    expect(prefix.length).toBeGreaterThan(4);
    expect(shown.startsWith(prefix), "the list shows the key's prefix").toBe(true);
    await expectAccessible(page, "keys");
    await screenshot(page, "keys");
    // The key works against the API, then stops working once revoked from the page.
    expect((await harness.stack.api.as(shown).get("/api/v2/auth/me")).status).toBe(200);
    await row.getByRole("button", { name: "Revoke key from the console" }).click();
    await row.getByText("revoked").waitFor();
    expect((await harness.stack.api.as(shown).get("/api/v2/auth/me")).status).toBe(401);
    await page.getByRole("link", { name: "Keys" }).first().click();
    expect(await page.content(), "the key is not shown again after leaving the page").not.toContain(shown);

    for (const [link, label] of [
      ["Notifications", "notifications"],
      ["Health", "health"],
    ] as const) {
      await page.getByRole("link", { name: link }).click();
      await page.getByRole("heading", { level: 1, name: link }).waitFor();
      await page.waitForLoadState("networkidle");
      await expectAccessible(page, label);
    }
    await page.getByText("Status:").waitFor();
    await screenshot(page, "health");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => JSON.stringify((globalThis as any).sessionStorage))).not.toContain("incumbent.credential");
  });

  it("uploads afiro.mps.gz (sent compressed, read by the service), compares highs, cbc and glpk: three optimal rows, the agreement, both charts drawn", async () => {
    const page = await open();
    await signInWithKey(page);
    await page.getByLabel("Upload a file", { exact: true }).setInputFiles(instancePath("afiro.mps"));
    const preview = page.getByTestId("preview");
    await preview.waitFor();
    expect(await preview.textContent()).toMatch(/afiro\.mps\.gz · MPS \(gzip\) · LP · 32\s+variables.* 27 constraints/);
    // The coefficient ranges before anything runs (afiro's matrix spans 0.107 to 2.429).
    expect(await page.getByTestId("numerics").textContent()).toMatch(/Matrix\[1\.1e-1, 2\.4e0\]/);
    for (const solver of ["highs", "cbc", "glpk"]) await page.getByRole("checkbox", { name: new RegExp(`^${solver}\\b`) }).check();
    await page.getByRole("button", { name: "Compare", exact: true }).click();

    const verdicts = page.locator("table.results tbody td.verdict");
    await expect
      .poll(async () => (await verdicts.allTextContents()).map((t) => t.trim()), { timeout: 90_000, interval: 250 })
      .toEqual(["optimal", "optimal", "optimal"]);
    await page.locator('dd[data-agree="true"]').waitFor();
    expect(await page.locator(".agreement").textContent()).toContain("highs, cbc, glpk");
    await page.locator('dd[data-verdicts-agree="true"]').waitFor();
    await expect.poll(() => page.locator('[data-chart="times"]').getAttribute("data-bars")).toBe("3");
    await expect.poll(async () => Number(await page.locator('[data-chart="progress"]').getAttribute("data-points"))).toBeGreaterThanOrEqual(3);
    expect(await colouredPixels(page, "times"), "bars on the times chart").toBeGreaterThan(200);
    expect(await colouredPixels(page, "progress"), "lines on the progress chart").toBeGreaterThan(20);
    await expectAccessible(page, "comparison");
    await screenshot(page, "compare");
  });

  it("opens a marketplace project's matrix and sees the grid; a cell opens its row", async () => {
    const page = await open();
    await signInWithKey(page);
    await page.getByRole("link", { name: "Matrices" }).click();
    await page.getByLabel("Model", { exact: true }).selectOption("knapsack");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.locator('input[name="dataset_id"]').first().waitFor();
    const datasets = await page.locator('input[name="dataset_id"]').count();
    expect(datasets).toBeGreaterThanOrEqual(2);
    for (const solver of ["highs", "cbc"]) await page.getByRole("checkbox", { name: new RegExp(`^${solver}\\b`) }).check();
    await page.getByRole("button", { name: "Run matrix" }).click();

    const cells = page.locator("table.matrix td.cell .verdict");
    await expect.poll(async () => (await cells.allTextContents()).length, { timeout: 30_000 }).toBe(datasets * 2);
    await expect.poll(async () => (await cells.allTextContents()).every((t) => t.trim() === "optimal"), { timeout: 90_000, interval: 500 }).toBe(true);
    await page.getByText("(completed)").first().waitFor();
    await page.locator("table.matrix td.cell button").first().click();
    await page.locator("table.results tbody tr").nth(1).waitFor();
    expect(await page.locator("table.results tbody td.verdict").allTextContents()).toEqual(["optimal", "optimal"]);
    await expectAccessible(page, "matrix");
    await screenshot(page, "matrix");
  });

  it("creates a trigger and shows its secret once; a fire over HTTP appears in the history with its result", async () => {
    const { documentId } = await createKnapsackDocument(harness.stack.api);
    const page = await open();
    await signInWithKey(page);
    await page.getByRole("link", { name: "Triggers" }).click();
    await page.getByLabel("Name", { exact: true }).fill("nightly knapsack");
    await page.getByLabel("Builder document", { exact: true }).selectOption(documentId);
    await page.locator("#trigger-version option").first().waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Add override field" }).click();
    await page.getByLabel("Field name", { exact: true }).fill("capacity");
    await page.getByLabel("Type", { exact: true }).selectOption("number");
    await page.getByLabel("Default (JSON)", { exact: true }).fill("5");
    await expectAccessible(page, "triggers form");
    await page.getByRole("button", { name: "Create trigger" }).click();

    const secret = await page.locator("#trigger-secret").inputValue();
    expect(secret.length).toBeGreaterThan(20);
    const row = page.locator("tr", { hasText: "nightly knapsack" });
    await row.waitFor();
    const triggerId = await row.getAttribute("data-trigger");
    const prefix = ((await row.locator("code").textContent()) ?? "").replace(/…$/, "");
    expect(prefix.length).toBeGreaterThan(4);
    expect(secret.startsWith(prefix), "the list shows the secret's prefix").toBe(true);
    await screenshot(page, "trigger-created");
    const created = await harness.stack.api.get(`/api/v2/triggers/${triggerId}`);
    expect(created.body.override_schema).toEqual([{ name: "capacity", type: "number", required: false, default: 5 }]);

    // Away and back: the secret is gone from the page for good.
    await page.getByRole("link", { name: "Health" }).click();
    await page.getByRole("link", { name: "Triggers" }).click();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole("button", { name: /History/ }).click();
    const fired = await fetch(`${harness.stack.url}/api/v2/triggers/${triggerId}/fire`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ override_data: { capacity: 7 } }),
    });
    expect(fired.status).toBe(202);
    const { run_id: runId } = (await fired.json()) as { run_id: string };
    const run = page.locator(`tr[data-run="${runId}"]`);
    await expect
      .poll(async () => (await run.count()) > 0 && ((await run.locator(".run-status").textContent()) ?? "").trim(), { timeout: 60_000, interval: 250 })
      .toBe("completed");
    expect(await run.textContent()).toContain(String(KNAPSACK_BEST[7]));
    expect(await run.textContent()).toContain('{"capacity":7}');

    // Run now and rerun from the page each add a run to the history; disabled, the trigger refuses a fire.
    await row.getByRole("button", { name: /^Run now/ }).click();
    await page.locator("table.runs td", { hasText: /^run_now$/ }).waitFor();
    await run.getByRole("button", { name: `Rerun ${runId}` }).click();
    await page.locator("table.runs td", { hasText: /^rerun$/ }).waitFor();
    await expect.poll(async () => (await harness.stack.api.get(`/api/v2/triggers/${triggerId}/runs`)).body.total).toBe(3);
    await row.getByRole("button", { name: /^Disable/ }).click();
    await row.getByText("disabled", { exact: true }).waitFor();
    const refused = await fetch(`${harness.stack.url}/api/v2/triggers/${triggerId}/fire`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(409);
    await row.getByRole("button", { name: /^Enable/ }).click();
    await row.getByText("enabled", { exact: true }).waitFor();
    await expectAccessible(page, "trigger history");
    await screenshot(page, "trigger-history");
  });

  it("cancels a running comparison from the page: the row in flight finishes, the rest are cancelled", async () => {
    const page = await open();
    await signInWithKey(page);
    await page.getByLabel("Upload a file", { exact: true }).setInputFiles(instancePath("misc03.mps"));
    await page.getByTestId("preview").waitFor();
    for (const solver of ["glpk", "cbc", "highs"]) await page.getByRole("checkbox", { name: new RegExp(`^${solver}\\b`) }).check();
    await page.getByLabel("Gap tolerance", { exact: true }).fill("0");
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.getByRole("button", { name: "Cancel comparison" }).click();
    await page.getByText("(cancelled)").waitFor({ timeout: 90_000 });
    const rows = (await page.locator("table.results tbody tr td:nth-child(2)").allTextContents()).map((t) => t.trim());
    expect(rows.at(-1), "the last solver never started").toBe("cancelled");
    expect(await page.getByRole("button", { name: "Cancel comparison" }).count(), "no cancel once final").toBe(0);
    await screenshot(page, "compare-cancelled");
  });

  it("shows the unread badge, lists the notifications the trigger run left, and marks one read", async () => {
    const unread = async () => (await harness.stack.api.get("/api/v2/notifications/unread-count")).body.unread_count as number;
    const before = await unread();
    expect(before, "the trigger run of the test before notified its owner").toBeGreaterThan(0);
    const page = await open();
    await signInWithKey(page);
    const badge = page.locator(".badge");
    await expect.poll(async () => ((await badge.count()) > 0 ? (await badge.textContent())?.trim() : null)).toBe(`${before} unread`);
    await page.getByRole("link", { name: /Notifications/ }).click();
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    await expect.poll(() => page.getByTestId("unread-count").textContent()).toBe(`${before} unread`);
    await expectAccessible(page, "notifications with items");
    await page
      .getByRole("button", { name: /^Mark read\b/ })
      .first()
      .click();
    await expect.poll(() => page.getByTestId("unread-count").textContent()).toBe(`${before - 1} unread`);
    expect(await unread()).toBe(before - 1);
    // The badge follows at once, without waiting for its 15-second poll.
    await expect
      .poll(async () => ((await badge.count()) > 0 ? (await badge.textContent())?.trim() : "none"))
      .toBe(before - 1 > 0 ? `${before - 1} unread` : "none");
    await screenshot(page, "notifications");
  });

  it.runIf(machineHas("python_solvers"))(
    "an infeasible execution offers the explain action, and its explanation shows the conflicting subset by JModel family and index, with its badges",
    async () => {
      const doc = await harness.stack.api.post("/api/v2/documents", { name: "supply", model: SUPPLY, solver_name: "highs" });
      const run = await harness.stack.api.post(`/api/v2/models/${doc.body.id}/execute`, {});
      expect(run.status, run.text).toBe(202);
      const originalId: string = run.body.execution_id;
      const page = await open();
      await signInWithKey(page);
      await page.getByRole("link", { name: "Execution" }).click();
      await page.getByLabel("Execution id", { exact: true }).fill(originalId);
      await page.getByRole("button", { name: "Open" }).click();
      await expect.poll(() => page.locator("dd.verdict").textContent(), { timeout: 30_000 }).toBe("infeasible");
      // The gate's word on it (no point to check) and the model's ranges.
      expect(await page.locator("dd.verification .tag").textContent()).toBe("no point to check");
      await page.getByRole("heading", { name: "Coefficient ranges" }).waitFor();
      await expectAccessible(page, "infeasible execution");
      await page.getByRole("button", { name: "Explain why it is infeasible" }).click();

      // The page moves to the explanation, which links back to the execution it explains.
      await page.getByRole("link", { name: originalId }).waitFor();
      const constraints = page.locator("table.subset-constraints tbody th");
      await expect
        .poll(async () => (await constraints.allTextContents()).sort(), { timeout: 30_000 })
        .toEqual(["meet_demand", 'within_capacity["north"]', 'within_capacity["south"]']);
      expect(await page.locator("table.subset-constraints tbody td").allTextContents()).toContain("within_capacity[north]");
      expect(await page.locator(".subset .tag").allTextContents()).toEqual(["the solver's IIS", "irreducible", "verified"]);
      // Whether the infeasible verdict itself held (issue 24): HiGHS's re-solve proved it.
      expect(await page.locator(".subset .verdict-check").getAttribute("data-status")).toBe("confirmed");
      expect(await page.getByRole("button", { name: "Explain why it is infeasible" }).count(), "no explain action on an explanation").toBe(0);
      await expectAccessible(page, "infeasible subset");
      await screenshot(page, "infeasible-subset");

      // Back on the original: it names its explanation and no longer offers the action.
      await page.getByRole("link", { name: originalId }).click();
      await page.getByText("Explained by").waitFor();
      expect(await page.getByRole("button", { name: "Explain why it is infeasible" }).count(), "explained once").toBe(0);
    },
  );

  it("sends the user back to sign in when the API stops taking their key", async () => {
    const key = (await harness.stack.api.post("/api/v2/keys", { name: "revoked while signed in" })).body;
    const page = await open();
    await signInWithKey(page, key.key);
    expect((await harness.stack.api.delete(`/api/v2/keys/${key.id}`)).status).toBe(200);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => JSON.stringify((globalThis as any).sessionStorage))).not.toContain(key.key);
    // The refused request itself is the one console line expected here (the browser logs every 401).
    harness.current!.errors = harness.current!.errors.filter((e) => !/status of 401/.test(e));
  });
});

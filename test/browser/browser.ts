import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { REPO_ROOT } from "../support/machine.js";
import { startTestStack, TEST_OWNER } from "../support/test-stack.js";

/**
 * Debian's chromium driven by playwright-core: no browser download, the package the set-up script
 * installs. Every page records its console errors and uncaught exceptions; a test fails on any.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"], timeout: 30_000 });
}

export interface ConsolePage {
  page: Page;
  /** console errors and uncaught exceptions so far */
  errors: string[];
  /** requests the page made to any other origin (there must be none) */
  foreign: string[];
}

export async function openConsole(browser: Browser, baseUrl: string): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
  const foreign: string[] = [];
  const origin = new URL(baseUrl).origin;
  page.on("request", (r) => {
    if (!r.url().startsWith("data:") && new URL(r.url()).origin !== origin) foreign.push(r.url());
  });
  await page.goto(`${baseUrl}/console`);
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  return { page, errors, foreign };
}

export type TestStack = Awaited<ReturnType<typeof startTestStack>>;

/** One describe's stack, browser and the page its running test opened. */
export interface ConsoleHarness {
  readonly stack: TestStack;
  readonly browser: Browser;
  /** The page the running test opened (its errors may be trimmed of one the test expects), or null. */
  readonly current: ConsolePage | null;
  /** A fresh context on the console's first page; closed and checked after the test. */
  open(): Promise<Page>;
  /** Signs the page in with an API key (the stack's bootstrap key unless given) and waits until it says so. */
  signInWithKey(page: Page, key?: string): Promise<void>;
  /** `open()` then `signInWithKey()` with the bootstrap key. */
  openSignedIn(): Promise<Page>;
}

/**
 * Registers, in the calling describe, what every browser test file needs: a test stack and Chromium
 * started together before the tests and stopped after; after each test, a screenshot if it failed, its
 * page closed, and the assertions that the page logged no error and asked no other origin.
 */
export function consoleHarness(): ConsoleHarness {
  let stack: TestStack | undefined;
  let browser: Browser | undefined;
  let current: ConsolePage | null = null;

  beforeAll(async () => {
    // One organization drives every page, polls included: its per-minute window is not what is tested.
    [stack, browser] = await Promise.all([startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  afterEach(async (context) => {
    const errors = current?.errors ?? [];
    const foreign = current?.foreign ?? [];
    if (current && context.task.result?.state === "fail") await screenshot(current.page, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, "-")}`);
    await current?.page.context().close();
    current = null;
    expect(errors, "the page logged errors").toEqual([]);
    expect(foreign, "the page asked another origin").toEqual([]);
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is not started: use the harness inside a test`);
    return value;
  };
  const open = async () => {
    current = await openConsole(started(browser, "browser"), started(stack, "stack").url);
    return current.page;
  };
  const signInWithKey = async (page: Page, key?: string) => {
    await page.getByLabel("API key", { exact: true }).fill(key ?? started(stack, "stack").apiKey);
    await page.getByRole("button", { name: "Use this key" }).click();
    await expect(page.getByText(`Signed in as ${TEST_OWNER.email}`)).toBeVisible();
  };
  return {
    get stack() {
      return started(stack, "stack");
    },
    get browser() {
      return started(browser, "browser");
    },
    get current() {
      return current;
    },
    open,
    signInWithKey,
    async openSignedIn() {
      const page = await open();
      await signInWithKey(page);
      return page;
    },
  };
}

export const SCREENSHOTS = path.join(REPO_ROOT, "test-results/browser");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core on the page as it stands: no serious or critical violation. The engine is evaluated through
 * the DevTools protocol, which the page's Content-Security-Policy does not govern (a script tag would be
 * refused, as it should be).
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // The root program has no DOM types: the page's globals are read as any (axe is the evaluated source's).
    const { axe, document } = globalThis as any;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: { id: string; impact: string; help: string; nodes: { target: string[] }[] }) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
  const severe = violations.filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical");
  expect(severe, `${label}: axe violations`).toEqual([]);
}

/** Coloured pixels on a chart's canvas: the series, not the grey axes and grid, were drawn. */
export async function colouredPixels(page: Page, chart: "times" | "progress"): Promise<number> {
  return page.evaluate((name) => {
    const canvas = (globalThis as any).document.querySelector(`[data-chart="${name}"] canvas`);
    if (!canvas) return 0;
    const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
      if (a > 100 && Math.max(r, g, b) - Math.min(r, g, b) > 60) count++;
    }
    return count;
  }, chart);
}

interface LocatorMatchers<R = unknown> {
  /** The locator's element is (or, with .not, stops being) visible within the timeout (default 30 s): a retrying assertion. */
  toBeVisible(options?: { timeout?: number }): Promise<R>;
}
declare module "vitest" {
  interface Matchers<T = any> extends LocatorMatchers<T> {}
}

expect.extend({
  async toBeVisible(received: Locator, options: { timeout?: number } = {}) {
    const timeout = options.timeout ?? 30_000;
    const state = this.isNot ? "hidden" : "visible";
    try {
      await received.waitFor({ state, timeout });
      // Under .not, vitest inverts pass: hidden in time means the negated assertion holds.
      return { pass: !this.isNot, message: () => `${received} became ${state}` };
    } catch {
      return { pass: this.isNot, message: () => `expected ${received} to be ${state} within ${timeout} ms` };
    }
  },
});

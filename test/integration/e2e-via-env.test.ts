import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";

const run = promisify(execFile);

/**
 * The black-box suite is pointed at a deployment with BASE_URL and API_KEY alone (a deployed stage, a
 * LocalStack): here at a local stack, through exactly those two variables.
 */
describe("the black-box suite against BASE_URL and API_KEY", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "600" } });
  });
  afterAll(() => stack?.stop());

  it("runs green against the URL and key it is given, starting no service of its own", async () => {
    const { stdout, stderr } = await run(process.execPath, [`${REPO_ROOT}/node_modules/vitest/vitest.mjs`, "run", "--project", "e2e"], {
      cwd: REPO_ROOT,
      env: { ...process.env, BASE_URL: stack.url, API_KEY: stack.apiKey, CI: "", NO_COLOR: "1", FORCE_COLOR: "0" },
      maxBuffer: 1 << 24,
    });
    const output = stdout + stderr;
    expect(output).toMatch(/Tests\s+\S*\s*\d+ passed/);
    expect(output).not.toMatch(/failed/);
    expect(output).not.toContain("Incumbent is running at"); // no npm start of its own
  }, 300_000);
});

import { describe, expect, it } from "vitest";
import { synthesize } from "./synthesize.js";

/**
 * The API's health check counts on as many live workers as the stage keeps: the template gives the API
 * function the stage's minimum task count (0 on a stage that idles, or without a fleet in the stack).
 */
function apiEnvironment(s: ReturnType<typeof synthesize>): Record<string, unknown> {
  const api = Object.entries(s.json.Resources).find(([id, r]) => r.Type === "AWS::Lambda::Function" && id.startsWith("ApiHandler"));
  return ((api![1].Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables ?? {}) as Record<string, unknown>;
}

describe("FLEET_MIN_WORKERS of the API function", () => {
  it("is the stage's minRunningSolverTasks: 0 for dev (idles), 1 for prod (keeps one warm), as configured otherwise", () => {
    expect(apiEnvironment(synthesize("dev")).FLEET_MIN_WORKERS).toBe("0");
    expect(apiEnvironment(synthesize("prod", { alarmEmail: "ops@example.com" })).FLEET_MIN_WORKERS).toBe("1");
    expect(apiEnvironment(synthesize("dev", { minRunningSolverTasks: 2 })).FLEET_MIN_WORKERS).toBe("2");
  });

  it("is 0 without a fleet in the stack (LocalStack: workers on a host the stack cannot count on)", () => {
    expect(apiEnvironment(synthesize("dev", { fleet: false })).FLEET_MIN_WORKERS).toBe("0");
  });
});

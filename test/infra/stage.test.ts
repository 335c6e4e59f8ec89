import { describe, expect, it } from "vitest";
import { envNameOf, jobsVisibilitySeconds, longestJobSeconds, resolveStageConfig, staleQueuedSeconds } from "../../lib/stage.js";

/** Stage settings: defaults, the three override sources in their order, and refusals. */
const resolve = (context: Record<string, unknown> = {}, env: Record<string, string> = {}) => resolveStageConfig({ context: (k) => context[k], env });

describe("stage settings", () => {
  it("defaults to dev; prod is a production stage with bigger tasks and longer retention", () => {
    const dev = resolve();
    expect(dev).toMatchObject({ stage: "dev", namePrefix: "incumbent-dev", production: false, solverCpu: 1024, solverMemoryMib: 2048, logRetentionDays: 14 });
    expect(dev).toMatchObject({ fleet: true, minRunningSolverTasks: 0, solverSpot: false, webhookReservedConcurrency: 0, workerStopTimeoutSeconds: 120 });
    const prod = resolve({ stage: "prod" });
    expect(prod).toMatchObject({
      stage: "prod",
      namePrefix: "incumbent-prod",
      production: true,
      solverCpu: 2048,
      minRunningSolverTasks: 1,
      maxRunningSolverTasks: 20,
      logRetentionDays: 90,
      webhookReservedConcurrency: 0,
    });
  });

  it("cdk.json's stage block < -c incumbent:<key> < INCUMBENT_<KEY>", () => {
    const fromFile = { stage: "staging", "incumbent:stages": { staging: { maxRunningSolverTasks: 7, maxSolveTimeSeconds: 120, production: true } } };
    expect(resolve(fromFile)).toMatchObject({ stage: "staging", production: true, maxRunningSolverTasks: 7, maxSolveTimeSeconds: 120, solverCpu: 2048 });
    expect(resolve({ ...fromFile, "incumbent:maxRunningSolverTasks": "9" }).maxRunningSolverTasks).toBe(9);
    expect(resolve({ ...fromFile, "incumbent:maxRunningSolverTasks": "9" }, { INCUMBENT_MAX_RUNNING_SOLVER_TASKS: "11" }).maxRunningSolverTasks).toBe(11);
    expect(resolve({}, { INCUMBENT_STAGE: "qa", INCUMBENT_PRODUCTION: "true" })).toMatchObject({ stage: "qa", production: true });
    expect(envNameOf("solverMemoryMib")).toBe("INCUMBENT_SOLVER_MEMORY_MIB");
    expect(envNameOf("maxSolveTimeSeconds")).toBe("INCUMBENT_MAX_SOLVE_TIME_SECONDS");
  });

  it("refuses settings AWS would refuse at deploy time, naming them", () => {
    expect(() => resolve({ "incumbent:solverMemoryMib": 3000 })).toThrow(/not a Fargate memory size/);
    expect(() => resolve({ "incumbent:solverCpu": 3000 })).toThrow(/solverCpu 3000/);
    expect(() => resolve({ "incumbent:logRetentionDays": 10 })).toThrow(/logRetentionDays: a CloudWatch Logs retention period/);
    expect(() => resolve({ "incumbent:maxRequestBodyMb": 8 })).toThrow(/maxRequestBodyMb/);
    expect(() => resolve({ "incumbent:domainName": "api.example.com" })).toThrow(/domainName and certificateArn go together/);
    expect(() => resolve({ "incumbent:maxSolveTimeSeconds": 6000 })).toThrow(/12-hour visibility/);
    expect(() => resolve({ stage: "Prod!" })).toThrow(/lower-case/);
    expect(() => resolve({}, { INCUMBENT_PRODUCTION: "maybe" })).toThrow(/production/);
    expect(() => resolve({ "incumbent:awsEndpointUrl": "localstack" })).toThrow(/awsEndpointUrl/);
    expect(() => resolve({ "incumbent:workerStopTimeoutSeconds": 121 })).toThrow(/workerStopTimeoutSeconds/);
    expect(() => resolve({ "incumbent:webhookMaxConcurrency": 1 })).toThrow(/webhookMaxConcurrency/);
    expect(() => resolve({ stage: "prod", "incumbent:minRunningSolverTasks": 0 })).toThrow(/at least one solver task warm/);
    // Without a fleet a production stage has no minimum to keep (LocalStack, host workers).
    expect(resolve({ stage: "prod", "incumbent:fleet": "false", "incumbent:minRunningSolverTasks": 0 })).toMatchObject({ fleet: false });
  });

  it("derives the queue and sweeper windows from the solve ceiling", () => {
    const c = resolve({ "incumbent:maxSolveTimeSeconds": 60, "incumbent:killGraceSeconds": 5 });
    expect(longestJobSeconds(c)).toBe(8 * 65 + 180);
    expect(jobsVisibilitySeconds(c)).toBe(700);
    expect(staleQueuedSeconds(c)).toBe(5 * 700 + 120);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { API_REQUEST_HOLD_SECONDS, PLAIN_SOLVE_HOLD_SECONDS, resolveStageConfig, stageNeeds } from "../../lib/stage.js";

/** What a stage needs of its account (Lambda concurrency, Fargate vCPU), and the API throttles derived from it. */
const resolve = (context: Record<string, unknown> = {}) => resolveStageConfig({ context: (k) => context[k], env: {} });

describe("a stage's needs of its account", () => {
  it("a new account's 10 concurrent executions: prod is refused (its webhook poller alone needs 10), dev gets a small API", () => {
    expect(() => resolve({ stage: "prod", "incumbent:accountLambdaConcurrency": 10 })).toThrow(/Request a quota increase.*this stage needs \d+/);
    const dev = stageNeeds(resolve({ "incumbent:accountLambdaConcurrency": 10 }));
    expect(dev.apiConcurrency).toBe(2);
    expect(dev.solveThrottle.rateLimit * PLAIN_SOLVE_HOLD_SECONDS + dev.apiThrottle.rateLimit * API_REQUEST_HOLD_SECONDS).toBeLessThanOrEqual(2);
  });

  it("a default account's 1,000: the plain solve (held up to 26 s) is throttled far below the other routes", () => {
    const prod = stageNeeds(resolve({ stage: "prod" }));
    expect(prod.apiThrottle).toEqual({ rateLimit: 200, burstLimit: 400 });
    expect(prod.solveThrottle.rateLimit).toBeCloseTo(17.07, 2);
    expect(prod.lambdaConcurrency).toBeLessThanOrEqual(1000);
  });

  it("refuses a fleet whose maximum needs more Fargate vCPU than the stated quota, and says how many", () => {
    expect(() => resolve({ stage: "prod", "incumbent:accountFargateVcpu": 6 })).toThrow(/needs 40 Fargate On-Demand vCPU \(20 tasks × 2\)/);
    expect(resolve({ stage: "prod", "incumbent:accountFargateVcpu": 40 }).accountFargateVcpu).toBe(40);
    const spot = stageNeeds(resolve({ stage: "prod", "incumbent:solverSpot": true }));
    expect([spot.fargateOnDemandVcpu, spot.fargateSpotVcpu]).toEqual([2, 38]);
    expect(() => resolve({ stage: "prod", "incumbent:solverSpot": true, "incumbent:accountFargateSpotVcpu": 20 })).toThrow(/38 Fargate Spot vCPU/);
  });

  it("for any accepted settings, the throttles cannot ask the API for more concurrency than the account leaves it, nor the stage for more than the quota", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 20_000 }),
        fc.integer({ min: 2, max: 1000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.boolean(),
        (accountLambdaConcurrency, webhookMaxConcurrency, apiRateLimit, apiBurstLimit, fleet) => {
          let config: ReturnType<typeof resolve>;
          try {
            config = resolve({
              "incumbent:accountLambdaConcurrency": accountLambdaConcurrency,
              "incumbent:webhookMaxConcurrency": webhookMaxConcurrency,
              "incumbent:apiRateLimit": apiRateLimit,
              "incumbent:apiBurstLimit": apiBurstLimit,
              "incumbent:fleet": fleet,
            });
          } catch (error) {
            // Refused only when the API would be left too little.
            expect(String(error)).toMatch(/Request a quota increase/);
            return;
          }
          const needs = stageNeeds(config);
          const apiAtThrottle = needs.solveThrottle.rateLimit * PLAIN_SOLVE_HOLD_SECONDS + needs.apiThrottle.rateLimit * API_REQUEST_HOLD_SECONDS;
          expect(apiAtThrottle).toBeLessThanOrEqual(needs.apiConcurrency);
          expect(needs.lambdaConcurrency).toBeLessThanOrEqual(accountLambdaConcurrency);
          expect(needs.apiThrottle.rateLimit).toBeLessThanOrEqual(apiRateLimit);
          expect(needs.solveThrottle.burstLimit).toBeGreaterThanOrEqual(1);
        },
      ),
      { seed: 26, numRuns: 300 },
    );
  });
});

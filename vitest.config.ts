import { defineConfig } from "vitest/config";

const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  env: { LOG_LEVEL: "SILENT", POWERTOOLS_DEV: "false", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
};

/**
 * Files whose assertions depend on solvers getting the CPU they are timed against (60 s wall-clock
 * limits on the manifest, a parallel-speed-up bound): they run after the rest, one file at a time.
 */
const HEAVY = [
  "test/integration/solve-manifest.test.ts",
  "test/integration/jaos-manifest.test.ts",
  "test/integration/jaos-scale.test.ts",
  "test/integration/jaos-scale-milp.test.ts",
  "test/integration/compare-matrix.test.ts",
];

export default defineConfig({
  test: {
    // Solver and stack tests are CPU-bound on small machines; two files at a time keeps timings honest.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/infra/**/*.test.ts", "functions/**/*.test.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/assembly/**/*.test.ts", "test/fuzz/**/*.test.ts"],
          exclude: HEAVY,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Faults: emulators cut and restored, workers killed, receivers that hang. Each file bounds its
        // waits; one file at a time, since several of them time leases and sweeps.
        test: {
          ...shared,
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // Attacks replayed against a local stack (issue 25): each file starts its own stack and bounds its waits.
        test: {
          ...shared,
          name: "abuse",
          include: ["test/abuse/**/*.test.ts"],
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          ...shared,
          name: "heavy",
          include: HEAVY,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
      {
        // The console driven in Debian's chromium: one file at a time (a browser and a stack each), after
        // the heavy files so it does not time them; each test bounded by its own timeout.
        test: {
          ...shared,
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          sequence: { groupOrder: 4 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          sequence: { groupOrder: 5 },
        },
      },
    ],
  },
});

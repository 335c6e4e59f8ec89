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
          include: ["test/unit/**/*.test.ts", "functions/**/*.test.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // jaos's own tests (packages/jaos/test): the engine alone, no service code.
        test: {
          ...shared,
          name: "jaos",
          include: ["packages/jaos/test/**/*.test.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The CDK stack synthesized in process: a file's first synth loads aws-cdk-lib and takes ~40 s
        // of a loaded 2-core machine (~3 s quiet), the next ones a few seconds. Waits sized for load.
        test: {
          ...shared,
          name: "infra",
          include: ["test/infra/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
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
        // Issue 25's attacks replayed against a local stack: each asserts a bounded answer by evidence that
        // does not depend on the machine's speed (times are `npm run bench -- abuse`). One file at a time,
        // so an attack's memory readings are its own.
        test: {
          ...shared,
          name: "abuse",
          include: ["test/abuse/**/*.test.ts"],
          fileParallelism: false,
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

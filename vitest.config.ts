import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "functions/**/*.test.ts", "solver-container/**/*.test.ts", "lib/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Solver and stack tests are CPU-bound on small machines; two files at a time keeps timings honest.
    maxWorkers: 2,
    env: { LOG_LEVEL: "SILENT", POWERTOOLS_DEV: "false" },
  },
});

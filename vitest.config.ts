import { defineConfig } from "vitest/config";

const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  env: { LOG_LEVEL: "SILENT", POWERTOOLS_DEV: "false", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
};

export default defineConfig({
  test: {
    // Solver and stack tests are CPU-bound on small machines; two files at a time keeps timings honest.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: "unit+integration",
          include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts", "test/infra/**/*.test.ts", "functions/**/*.test.ts", "solver-container/**/*.test.ts", "lib/**/*.test.ts"],
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
        },
      },
    ],
  },
});

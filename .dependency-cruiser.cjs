/**
 * The layers of the house, enforced (issue 28): `npm test` runs these rules through
 * test/architecture/layers.test.ts, and a wrong import fails it with the rule's name and comment.
 *
 *   handlers (functions/api, functions/webhook, functions/sweeper, functions/fleet-monitor)
 *     -> core services and use cases (functions/core/<domain>/)
 *       -> domain stores (functions/core/<domain>/store.ts, <domain>/<what>-store.ts, limits/counters.ts)
 *         -> the generic table layer (functions/core/store/: table, dynamo, items, conditions, leases,
 *            storable-numbers, keys; no domain store lives there)
 *   the worker (solver-container/src) -> core use cases; never a handler
 *   jaos (the engine) -> nothing of the service
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules depend on each other in one direction; a cycle through a value import means two modules are one. Type-only cycles are allowed.",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "jaos-imports-nothing-of-the-service",
      severity: "error",
      comment: "jaos is a library: it may not import the service, the worker, the infrastructure or the tests.",
      from: { path: "^packages/jaos/" },
      to: { path: "^(functions|solver-container|lib|bin|console|clients|scripts|test)/" },
    },
    {
      name: "core-never-imports-a-handler",
      severity: "error",
      comment: "Core holds the rules; handlers, the worker, the infrastructure and scripts call it, never the other way round.",
      from: { path: "^functions/core/" },
      to: { path: "^(functions/(api|webhook|sweeper|fleet-monitor)|solver-container|lib|bin|console|scripts)/" },
    },
    {
      name: "handlers-never-reach-the-table",
      severity: "error",
      comment: "Handlers go through core services; the generic table layer and the DynamoDB clients are for stores.",
      from: { path: "^functions/(api|webhook|sweeper|fleet-monitor)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^functions/core/store/(table|dynamo|items|conditions|leases)\\.ts$|@aws-sdk/(client-dynamodb|lib-dynamodb)" },
    },
    {
      name: "stores-never-import-services",
      severity: "error",
      comment: "A store persists records; the service above it holds the rules. A store reaching up makes a cycle of layers.",
      from: { path: "^functions/core/(store/|.+/(store|[a-z-]+-store)\\.ts$|limits/counters\\.ts$)" },
      to: { path: "^functions/core/.+/(service|use-cases?)\\.ts$" },
    },
    {
      name: "table-layer-is-generic",
      severity: "error",
      comment:
        "The generic table layer (all of functions/core/store/; domain stores live in their domains) knows no domain: it may import only its own folder and the core's shared basics.",
      from: { path: "^functions/core/store/" },
      to: {
        path: "^functions/core/",
        pathNot: "^functions/core/(store/|aws/|errors\\.ts|clock\\.ts|logger\\.ts|config\\.ts|observability/(log-context|metric-names)\\.ts$)",
      },
    },
    {
      name: "worker-never-imports-a-handler",
      severity: "error",
      comment: "The worker calls core use cases; the API's handlers and middleware are not its layer.",
      from: { path: "^solver-container/" },
      to: { path: "^functions/(api|webhook|sweeper|fleet-monitor)/" },
    },
    {
      name: "no-test-code-in-production",
      severity: "error",
      comment: "Shipped code never imports the tests' support files.",
      from: { path: "^(functions|solver-container|lib|bin|clients/typescript/src|packages/[^/]+/src)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|cdk\\.out|\\.build)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".mts", ".js", ".mjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};

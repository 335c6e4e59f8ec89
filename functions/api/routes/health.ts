import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { Hono } from "hono";
import { z } from "zod";
import { judgeSolverFleet } from "../../core/health/solver-check.js";
import { overallStatus, readSystem, usageStatus, type Component } from "../../core/health/system.js";
import { SOLVER_NAMES } from "../../core/solvers/types.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { queryInt, route } from "../http/route.js";

const SystemSchema = z.object({
  cpu_percent: z.number(),
  memory_percent: z.number(),
  memory_available_mb: z.number(),
  disk_usage_percent: z.number(),
});

export const HealthSchema = z.object({
  status: z.literal("ok"),
  version: z.string(),
  solver: z.string(),
  system: SystemSchema,
  uptime_seconds: z.number(),
  python_version: z.string().describe("the runtime's version (Node.js); the field keeps the spec's name"),
});

const ComponentSchema = z.object({
  name: z.enum(["database", "solver", "memory", "disk"]),
  status: z.enum(["healthy", "degraded", "down"]),
  latency_ms: z.number().nullable(),
  message: z.string().nullable(),
});

export const HealthStatusSchema = z.object({
  status: z.enum(["healthy", "degraded", "down"]),
  version: z.string(),
  uptime_seconds: z.number(),
  components: z.array(ComponentSchema),
  sla_target: z.string(),
  checks_passed: z.number().int(),
  checks_total: z.number().int(),
});

export const MetricsSchema = z.object({
  uptime_seconds: z.number(),
  start_time: z.string(),
  total_requests: z.number().int(),
  total_successful: z.number().int(),
  total_failed: z.number().int(),
  problem_stats: z.object({ total_solved: z.number().int(), avg_solve_time_ms: z.number() }),
});

const RecentItemSchema = z.object({
  method: z.string(),
  path: z.string().describe("the matched route's template, or `(no route)`"),
  status: z.number().int(),
  duration_ms: z.number(),
  timestamp: z.string(),
});

const SOLVER_ENGINE = `incumbent (${SOLVER_NAMES.join(", ")})`;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T | null; error: Error | null; ms: number }> {
  const start = performance.now();
  try {
    const value = await fn();
    return { value, error: null, ms: Math.round((performance.now() - start) * 100) / 100 };
  } catch (error) {
    return { value: null, error: error as Error, ms: Math.round((performance.now() - start) * 100) / 100 };
  }
}

export function registerHealthRoutes(
  app: Hono<ApiEnv>,
  deps: Pick<ApiDeps, "config" | "clock" | "startedAtMs" | "dynamo" | "metrics" | "metricsStore" | "workerHeartbeats">,
): void {
  const uptime = () => Math.round((deps.clock.now() - deps.startedAtMs) / 10) / 100;

  route(
    app,
    {
      method: "get",
      path: "/api/v2/health",
      operationId: "health",
      summary: "Liveness and machine readings",
      tag: "Health",
      access: "public",
      role: null,
      rateClass: "exempt",
      errors: [],
      responses: { 200: { description: "The service is up.", schema: HealthSchema } },
    },
    (c) =>
      c.json({
        status: "ok" as const,
        version: deps.config.apiVersion,
        solver: SOLVER_ENGINE,
        system: readSystem(),
        uptime_seconds: uptime(),
        python_version: process.version,
      }),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/health/status",
      operationId: "healthStatus",
      summary: "Component checks: database, solver, memory, disk",
      tag: "Health",
      access: "public",
      role: null,
      rateClass: "exempt",
      errors: [],
      responses: { 200: { description: "Overall status and each component's.", schema: HealthStatusSchema } },
    },
    async (c) => {
      const [db, solver] = await Promise.all([
        timed(() => deps.dynamo.send(new DescribeTableCommand({ TableName: deps.config.tableName }))),
        timed(() => deps.workerHeartbeats.list()),
      ]);
      const fleet = solver.value
        ? judgeSolverFleet(solver.value, deps.clock.now(), { heartbeatSeconds: deps.config.workerHeartbeatSeconds, minWorkers: deps.config.fleetMinWorkers })
        : { status: "down" as const, message: `solver unavailable: the fleet's reports could not be read (${solver.error?.name})` };
      const system = readSystem();
      const components: Component[] = [
        {
          name: "database",
          status: db.error ? "down" : "healthy",
          latency_ms: db.ms,
          message: db.error ? `connection failed: ${db.error.name}` : null,
        },
        {
          name: "solver",
          status: fleet.status,
          latency_ms: solver.ms,
          message: fleet.message,
        },
        { name: "memory", status: usageStatus(system.memory_percent), latency_ms: null, message: `${system.memory_percent}% used` },
        { name: "disk", status: usageStatus(system.disk_usage_percent), latency_ms: null, message: `${system.disk_usage_percent}% used` },
      ];
      return c.json({
        status: overallStatus(components),
        version: deps.config.apiVersion,
        uptime_seconds: uptime(),
        components,
        sla_target: "99.9%",
        checks_passed: components.filter((x) => x.status === "healthy").length,
        checks_total: components.length,
      });
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/health/metrics",
      operationId: "healthMetrics",
      summary: "Service-wide request and solve counters",
      description: "Public, and limited per client IP (it reads the table): monitors use /api/v2/health.",
      tag: "Health",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: [],
      responses: { 200: { description: "Counters kept in DynamoDB across all API instances.", schema: MetricsSchema } },
    },
    async (c) => {
      await deps.metrics.flushNow();
      const totals = await deps.metricsStore.totals();
      const start = totals.start_time ? Date.parse(totals.start_time) : deps.startedAtMs;
      return c.json({
        uptime_seconds: Math.round((deps.clock.now() - start) / 10) / 100,
        start_time: new Date(start).toISOString(),
        total_requests: totals.total_requests,
        total_successful: totals.total_successful,
        total_failed: totals.total_failed,
        problem_stats: {
          total_solved: totals.total_solved,
          avg_solve_time_ms: totals.total_solved > 0 ? Math.round((totals.solve_time_ms_sum / totals.total_solved) * 100) / 100 : 0,
        },
      });
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/health/metrics/recent",
      operationId: "healthMetricsRecent",
      summary: "Recent requests, newest first",
      description:
        "Each item names the route's template (`/api/v2/executions/{execution_id}` as `/api/v2/executions/:execution_id`), never a request's own path, so no resource id of anyone shows; `(no route)` for a path no route has. Public, and limited per client IP.",
      tag: "Health",
      access: "public",
      role: null,
      rateClass: "anonymous",
      errors: [],
      query: z.object({ limit: queryInt(10, 1, 100) }),
      responses: { 200: { description: "Recent request history.", schema: z.object({ items: z.array(RecentItemSchema), count: z.number().int() }) } },
    },
    async (c, { query }) => {
      await deps.metrics.flushNow();
      const items = await deps.metricsStore.recent(query.limit);
      return c.json({ items, count: items.length });
    },
  );
}

import type { Hono } from "hono";
import { z } from "zod";
import { AppError } from "../../core/errors.js";
import { AsyncSolveResponseSchema, ExecutionViewSchema, SolveRequestSchema, SolveResponseSchema } from "../../core/executions/schemas.js";
import { ApiSolver, mayTakeOver } from "../../core/executions/api-solve.js";
import { type ExecutionOutcome, type ExecutionRecord, executionView } from "../../core/executions/store.js";
import { InventoryEntrySchema } from "../../core/solvers/inventory.js";
import { SOLVERS } from "../../core/solvers/registry.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { ExecutionIdParams, launchErrors } from "../http/route-parts.js";
import { registerRecommendationRoute } from "./recommendation.js";

const SolverAvailableSchema = InventoryEntrySchema.extend({
  title: z.string(),
  can_express: z.object({ integer_variables: z.boolean(), quadratic_terms: z.enum(["none", "continuous_only", "all"]) }),
});

export function registerSolveRoutes(
  app: Hono<ApiEnv>,
  deps: Pick<ApiDeps, "executions" | "inventory" | "clock" | "config" | "apiSolver" | "recommendations" | "modelWork">,
): void {
  registerRecommendationRoute(app, deps);

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/available",
      operationId: "solversAvailable",
      summary: "The solvers this service has, their versions and what each can express",
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: {
        200: {
          description: "One entry per registered solver; `auto` picks among the available ones per problem class.",
          schema: z.object({ solvers: z.array(SolverAvailableSchema), reported_at: z.string().nullable(), threads: z.number().int() }),
        },
      },
    },
    async (c) => {
      const inv = await deps.inventory.read(deps.clock.now());
      const solvers = inv.solvers.map((s) => {
        const d = SOLVERS[s.name as keyof typeof SOLVERS];
        return {
          ...s,
          title: d?.title ?? s.name,
          can_express: { integer_variables: d?.capabilities.integers ?? false, quadratic_terms: d?.capabilities.quadratic ?? "none" },
        };
      });
      return c.json({ solvers, reported_at: inv.reported_at, threads: deps.config.solverThreads });
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solve",
      operationId: "solve",
      summary: "Solve a problem and wait for the result",
      description:
        "Waits up to SOLVE_WAIT_SECONDS for the solver fleet; past it, 503 with the execution id (the solve goes on: poll GET /api/v2/models/executions/{id}, or use POST /api/v2/solve/async). With solver_name `race` the solvers run at once on separate workers and the first verified optimal, infeasible or unbounded answer is returned, with `race` saying who won and what the others had reached; it costs one solve's credits per entrant and one solve of the daily quota.",
      tag: "Solve",
      access: "user",
      role: "solver",
      rateClass: "solve",
      errors: launchErrors({ after: ["solver_busy"] }),
      body: SolveRequestSchema,
      responses: {
        200: { description: "The solve response; `status` is the verdict.", schema: SolveResponseSchema },
      },
    },
    async (c, input) => {
      const principal = input.principal;
      const deadline = Date.now() + deps.config.solveWaitSeconds * 1000;
      const origin = { kind: "solve", id: null } as const;
      // Answers from zero (core/executions/api-solve.ts): a small solve no warm worker is there to take is
      // solved here — at once when no worker is live, after a short wait when none took it.
      const plan = await deps.apiSolver.plan(input.body.problem, input.body.solver_name);
      const owner = ApiSolver.owner(c.get("requestId"));
      let final: ExecutionOutcome | "released" | null = null;
      let record: ExecutionRecord;
      if (plan.here && plan.now) {
        record = await deps.executions.launch(principal, input.body, { origin, notify: false, holdFor: { worker: owner, leaseMs: deps.apiSolver.leaseMs() } });
        final = await deps.apiSolver.solveHeld(record, owner, deadline);
        if (final === "released") await deps.executions.queue(record);
      } else {
        record = await deps.executions.launch(principal, input.body, { origin, notify: false });
        // A live fleet: the API takes over only jaos's work (a named jaos, or an `auto` that chose it).
        if (plan.here && mayTakeOver(record)) {
          final = await deps.executions.waitForFinal(principal.orgId, record.id, Math.min(deps.config.apiSolveTakeoverSeconds * 1000, deadline - Date.now()));
          final ??= await deps.apiSolver.takeOver(record, owner, deadline);
        }
      }
      if (final === null || final === "released") final = await deps.executions.waitForFinal(principal.orgId, record.id, Math.max(0, deadline - Date.now()));
      if (!final) {
        throw new AppError(
          "solver_busy",
          `All solver workers are busy; the solve is queued as execution ${record.id}. Poll GET /api/v2/models/executions/${record.id}, and use POST /api/v2/solve/async for long solves.`,
          { execution_id: record.id },
        );
      }
      const result = await deps.executions.result(final);
      if (!result) throw new AppError("internal_error", final.error_message ?? `Execution ${final.id} failed without a result.`, { execution_id: final.id });
      return c.json(result);
    },
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/solve/async",
      operationId: "solveAsync",
      summary: "Queue a solve; poll the execution",
      tag: "Solve",
      access: "user",
      role: "solver",
      rateClass: "solve",
      errors: launchErrors(),
      body: SolveRequestSchema,
      responses: {
        202: { description: "Queued.", schema: AsyncSolveResponseSchema },
      },
    },
    async (c, input) => {
      const principal = input.principal;
      const record = await deps.executions.launch(principal, input.body, { origin: { kind: "solve_async", id: null }, notify: true });
      return c.json({ execution_id: record.id, status: "queued" as const }, 202);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/models/executions/:execution_id",
      operationId: "getExecution",
      summary: "One execution, with its result once finished",
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "models_read",
      errors: ["not_found"],
      params: ExecutionIdParams,
      responses: { 200: { description: "The execution.", schema: ExecutionViewSchema } },
    },
    async (c, input) => c.json(await deps.executions.view(input.principal, input.params.execution_id)),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/models/executions/:execution_id/explain",
      operationId: "explainExecution",
      summary: "Explain an infeasible execution after the fact",
      description:
        "Queues a new execution of the same problem with the same solver, time limit and gap, and `settings.explain_infeasibility`; its result carries `infeasibility`. Charged as a solve. The new execution names the original in `explains_execution_id`; the original names it in `explanation_execution_id`.",
      tag: "Solve",
      access: "user",
      role: "solver",
      rateClass: "solve",
      errors: launchErrors({ before: ["not_found", "execution_not_infeasible"], atPriorityZero: true }),
      params: ExecutionIdParams,
      responses: { 202: { description: "The explanation, queued.", schema: ExecutionViewSchema } },
    },
    async (c, input) => {
      const record = await deps.executions.explain(input.principal, input.params.execution_id);
      return c.json(executionView(record, null), 202);
    },
  );
}

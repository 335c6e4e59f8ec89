import { z } from "zod";
import type { ErrorName } from "../../core/errors.js";

/**
 * Pieces every route declaration shares, declared once: the errors a launch of work can answer and the
 * path parameters of each kind of id (issue 28: the list of launch errors was written out five times,
 * the `execution_id` path schema four times).
 */

/**
 * What queuing a job (a solve, a comparison, a matrix, a stored model's execution, an explanation) can
 * answer besides validation: the model caps, the daily quota, the priority budget, credits, no solver
 * able to run the model, and a queue that refused the message.
 */
const LAUNCH_ERRORS = [
  "variable_limit_exceeded",
  "model_size_limit_exceeded",
  "daily_solve_quota_exceeded",
  "priority_budget_exceeded",
  "insufficient_credits",
  "no_solver_can_run_this_model",
  "enqueue_failed",
] as const satisfies readonly ErrorName[];

/**
 * The launch errors with a route's own: `before` (e.g. `not_found` for a launch from a stored thing) and
 * `after` are added in place; `atPriorityZero` drops the priority budget for launches that always queue at
 * priority 0 (an explanation).
 */
export function launchErrors(options: { before?: ErrorName[]; after?: ErrorName[]; atPriorityZero?: boolean } = {}): ErrorName[] {
  const launch = LAUNCH_ERRORS.filter((e) => !(options.atPriorityZero && e === "priority_budget_exceeded"));
  return [...(options.before ?? []), ...launch, ...(options.after ?? [])];
}

/**
 * What queuing a trigger's run (fired by its secret, run now, rerun) can answer after the route's own
 * access error: no such trigger, a disabled one, override input refused, a pinned version that no
 * longer exists (conflict), a queue that refused the message.
 */
export const TRIGGER_RUN_ERRORS = [
  "not_found",
  "trigger_disabled",
  "trigger_input_refused",
  "conflict",
  "enqueue_failed",
] as const satisfies readonly ErrorName[];

/** A path parameter holding an id: present and non-empty; its kind is checked by the lookup (404). */
const pathId = () => z.string().min(1);

export const ExecutionIdParams = z.object({ execution_id: pathId() });
export const ComparisonIdParams = z.object({ comparison_id: pathId() });
export const BatchIdParams = z.object({ batch_id: pathId() });
export const ProjectIdParams = z.object({ project_id: pathId() });
export const ModelIdParams = z.object({ model_id: pathId() });
export const TriggerIdParams = z.object({ trigger_id: pathId() });
export const DocumentIdParams = z.object({ document_id: pathId() });
export const UserIdParams = z.object({ user_id: pathId() });
export const KeyIdParams = z.object({ key_id: pathId() });
export const NotificationIdParams = z.object({ notification_id: pathId() });
export const UserKeyIdParams = UserIdParams.merge(KeyIdParams);
export const WorkspaceMemberParams = z.object({ workspace_id: pathId(), user_id: pathId() });

import { DescribeTasksCommand, ListTasksCommand, StopTaskCommand, type ECSClient } from "@aws-sdk/client-ecs";
import { JobMessageSchema, type JobMessage } from "../core/queue/messages.js";
import type { Services } from "../core/services.js";
import { runKey } from "../core/triggers/store.js";

/**
 * Stops Fargate tasks that should no longer run: their job is finished (a worker that hangs after
 * writing its result) or is past its time limit plus grace with margin (a solver the kill switch could
 * not stop). Each task carries its job in the JOB environment override the dispatcher set.
 */
export interface ReaperOptions {
  cluster: string;
  startedBy: string;
  containerName: string;
}

async function jobState(services: Services, job: JobMessage): Promise<{ final: boolean; startedAt: string | null; limitSeconds: number }> {
  if (job.type === "execution") {
    const e = await services.executionStore.get(job.org_id, job.id);
    return { final: !e || !["queued", "running"].includes(e.status), startedAt: e?.started_at ?? null, limitSeconds: e?.settings.time_limit_seconds ?? 0 };
  }
  if (job.type === "comparison") {
    const c = await services.comparisonStore.get(job.org_id, job.id);
    const solvers = c?.results.filter((r) => r.solver_status !== "unsupported").length ?? 1;
    return {
      final: !c || !["pending", "running"].includes(c.status),
      startedAt: c?.started_at ?? null,
      limitSeconds: (c?.settings.time_limit_seconds ?? 0) * solvers,
    };
  }
  const key = runKey(job.trigger_id ?? "", job.id);
  const item = key ? await services.table.get<{ status: string; started_at?: string; time_limit_seconds?: number }>(key.pk, key.sk) : null;
  return {
    final: !item || !["queued", "pending", "running"].includes(item.status),
    startedAt: item?.started_at ?? null,
    limitSeconds: item?.time_limit_seconds ?? 0,
  };
}

export async function stopFinishedTasks(ecs: ECSClient, services: Services, options: ReaperOptions): Promise<string[]> {
  if (!options.cluster) return [];
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const out = await ecs.send(new ListTasksCommand({ cluster: options.cluster, startedBy: options.startedBy, desiredStatus: "RUNNING", nextToken }));
    arns.push(...(out.taskArns ?? []));
    nextToken = out.nextToken;
  } while (nextToken);
  const stopped: string[] = [];
  const now = services.clock.now();
  const graceMs = (services.config.killGraceSeconds + 120) * 1000;
  for (let i = 0; i < arns.length; i += 100) {
    const described = await ecs.send(new DescribeTasksCommand({ cluster: options.cluster, tasks: arns.slice(i, i + 100) }));
    for (const task of described.tasks ?? []) {
      const override = task.overrides?.containerOverrides?.find((o) => o.name === options.containerName);
      const raw = override?.environment?.find((e) => e.name === "JOB")?.value;
      const parsed = raw ? JobMessageSchema.safeParse(JSON.parse(raw)) : null;
      if (!parsed?.success || !task.taskArn) continue;
      const state = await jobState(services, parsed.data);
      const overdue = state.startedAt !== null && now - Date.parse(state.startedAt) > state.limitSeconds * 1000 + graceMs;
      if (state.final || overdue) {
        await ecs.send(new StopTaskCommand({ cluster: options.cluster, task: task.taskArn, reason: state.final ? "job finished" : "job past its time limit" }));
        stopped.push(task.taskArn);
      }
    }
  }
  return stopped;
}

import { ListTasksCommand, RunTaskCommand, type ECSClient } from "@aws-sdk/client-ecs";
import type { JobMessage } from "../core/queue/messages.js";
import { CapacityReached, type TaskLauncher } from "./task-launcher.js";

export interface EcsLauncherOptions {
  cluster: string;
  taskDefinition: string;
  containerName: string;
  subnets: string[];
  securityGroups: string[];
  assignPublicIp: boolean;
  /** Upper bound of running solver tasks; the rest wait in the queue. 0 = none. */
  maxRunningTasks: number;
  /** Marks our tasks, so counting running ones ignores anything else in the cluster. */
  startedBy: string;
}

/** AWS: a Fargate task per job, the job as the container's JOB environment override. */
export class EcsTaskLauncher implements TaskLauncher {
  constructor(
    private readonly ecs: ECSClient,
    private readonly options: EcsLauncherOptions,
  ) {}

  private async runningTasks(): Promise<number> {
    let count = 0;
    for (const desiredStatus of ["RUNNING", "PENDING"] as const) {
      let nextToken: string | undefined;
      do {
        const out = await this.ecs.send(new ListTasksCommand({ cluster: this.options.cluster, startedBy: this.options.startedBy, desiredStatus, nextToken }));
        count += out.taskArns?.length ?? 0;
        nextToken = out.nextToken;
      } while (nextToken);
    }
    return count;
  }

  async launch(job: JobMessage): Promise<void> {
    const max = this.options.maxRunningTasks;
    if (max > 0) {
      const running = await this.runningTasks();
      if (running >= max) throw new CapacityReached(running, max);
    }
    const out = await this.ecs.send(
      new RunTaskCommand({
        cluster: this.options.cluster,
        taskDefinition: this.options.taskDefinition,
        launchType: "FARGATE",
        count: 1,
        startedBy: this.options.startedBy,
        networkConfiguration: {
          awsvpcConfiguration: {
            subnets: this.options.subnets,
            securityGroups: this.options.securityGroups,
            assignPublicIp: this.options.assignPublicIp ? "ENABLED" : "DISABLED",
          },
        },
        overrides: { containerOverrides: [{ name: this.options.containerName, environment: [{ name: "JOB", value: JSON.stringify(job) }] }] },
        tags: [
          { key: "incumbent:job-id", value: job.id },
          { key: "incumbent:job-type", value: job.type },
        ],
      }),
    );
    const failure = out.failures?.[0];
    if (failure || !out.tasks?.length) throw new Error(`RunTask failed: ${failure?.reason ?? "no task started"} ${failure?.detail ?? ""}`.trim());
  }
}

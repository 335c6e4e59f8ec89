import { ECSClient } from "@aws-sdk/client-ecs";
import { createLogger } from "../core/logger.js";
import { SQSClient } from "@aws-sdk/client-sqs";
import { Queues } from "../core/queue/sqs.js";
import { EcsTaskLauncher } from "./ecs-launcher.js";
import { createDispatcher } from "./handler.js";

/** Lambda entry of the dispatcher (SQS solve-jobs → ECS RunTask). Settings come from the stack. */
const env = process.env;
const list = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const launcher = new EcsTaskLauncher(new ECSClient({ ...(env.AWS_ENDPOINT_URL ? { endpoint: env.AWS_ENDPOINT_URL } : {}) }), {
  cluster: env.SOLVER_CLUSTER_ARN ?? "",
  taskDefinition: env.SOLVER_TASK_DEFINITION_ARN ?? "",
  containerName: env.SOLVER_CONTAINER_NAME ?? "solver",
  subnets: list(env.SOLVER_SUBNET_IDS),
  securityGroups: list(env.SOLVER_SECURITY_GROUP_IDS),
  assignPublicIp: env.SOLVER_ASSIGN_PUBLIC_IP === "true",
  maxRunningTasks: Number(env.MAX_RUNNING_SOLVER_TASKS ?? 0),
  startedBy: env.SOLVER_STARTED_BY ?? "incumbent-dispatcher",
});

// A job that finds the fleet full is sent again after CAPACITY_RETRY_SECONDS (SQS delays are ≤ 15 min).
const queues = new Queues(new SQSClient({ ...(env.AWS_ENDPOINT_URL ? { endpoint: env.AWS_ENDPOINT_URL } : {}) }), {
  jobsQueueUrl: env.JOBS_QUEUE_URL ?? "",
  webhooksQueueUrl: "",
});
const capacityRetrySeconds = Number(env.CAPACITY_RETRY_SECONDS ?? 30);

export const handler = createDispatcher(launcher, createLogger("incumbent-dispatcher"), {
  requeue: (job) => queues.sendJob(job, capacityRetrySeconds).then(() => undefined),
});

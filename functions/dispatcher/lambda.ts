import { ECSClient } from "@aws-sdk/client-ecs";
import { createLogger } from "../core/logger.js";
import { EcsTaskLauncher } from "./ecs-launcher.js";
import { createDispatcher } from "./handler.js";

/** Lambda entry of the dispatcher (SQS solve-jobs → ECS RunTask). Settings come from the stack. */
const env = process.env;
const list = (v: string | undefined) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);

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

export const handler = createDispatcher(launcher, createLogger("incumbent-dispatcher"));

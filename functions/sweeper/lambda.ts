import { ECSClient } from "@aws-sdk/client-ecs";
import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { createServices } from "../core/services.js";
import { triggerSweepHooks } from "../core/triggers/sweep-hook.js";
import { createSweeper } from "./handler.js";
import { stopFinishedTasks } from "./task-reaper.js";

/** Lambda entry of the sweeper (EventBridge schedule). */
const config = loadConfig(process.env);
const services = createServices({ config, jwtSecret: "", logger: createLogger("incumbent-sweeper") });
const ecs = new ECSClient({ ...(config.awsEndpointUrl ? { endpoint: config.awsEndpointUrl } : {}) });

export const handler = createSweeper(services, triggerSweepHooks(services), () =>
  stopFinishedTasks(ecs, services, {
    cluster: process.env.SOLVER_CLUSTER_ARN ?? "",
    startedBy: process.env.SOLVER_STARTED_BY ?? "incumbent-dispatcher",
    containerName: process.env.SOLVER_CONTAINER_NAME ?? "solver",
  }).then(() => undefined),
);

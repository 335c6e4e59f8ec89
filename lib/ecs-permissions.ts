import { Arn, ArnFormat, Stack } from "aws-cdk-lib";
import type * as ecs from "aws-cdk-lib/aws-ecs";
import * as iam from "aws-cdk-lib/aws-iam";

/**
 * ECS rights of the dispatcher and the sweeper, each scoped to the solver cluster.
 *
 * `ecs:ListTasks` is the one action here that names no resource: tasks are listed per cluster, the
 * action's only resource type (container-instance) does not exist on Fargate, so the statement uses
 * `*` and pins the cluster with the `ecs:cluster` condition key instead. Everything else names the
 * task definition or the cluster's tasks.
 */
export class SolverClusterAccess {
  constructor(
    private readonly cluster: ecs.ICluster,
    private readonly taskDefinition: ecs.TaskDefinition,
  ) {}

  /** `arn:…:task/<cluster>/*`: every task of the solver cluster. */
  private get tasksArn(): string {
    return Arn.format(
      { service: "ecs", resource: "task", resourceName: `${this.cluster.clusterName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME },
      Stack.of(this.cluster),
    );
  }

  private get inCluster() {
    return { ArnEquals: { "ecs:cluster": this.cluster.clusterArn } };
  }

  listTasks(): iam.PolicyStatement {
    return new iam.PolicyStatement({ sid: "ListSolverTasks", actions: ["ecs:ListTasks"], resources: ["*"], conditions: this.inCluster });
  }

  /** The dispatcher: start the solver task definition in this cluster, tagged, passing its two roles. */
  grantRunTask(grantee: iam.IGrantable): void {
    const policy = grantee.grantPrincipal;
    policy.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "RunSolverTask",
        actions: ["ecs:RunTask"],
        resources: [this.taskDefinition.taskDefinitionArn],
        conditions: this.inCluster,
      }),
    );
    // RunTask with `tags` needs tag-on-create permission on the new task.
    policy.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "TagSolverTaskOnCreate",
        actions: ["ecs:TagResource"],
        resources: [this.tasksArn],
        conditions: { StringEquals: { "ecs:CreateAction": "RunTask" } },
      }),
    );
    const roles = [this.taskDefinition.taskRole.roleArn, this.taskDefinition.obtainExecutionRole().roleArn];
    policy.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "PassSolverTaskRoles",
        actions: ["iam:PassRole"],
        resources: roles,
        conditions: { StringEquals: { "iam:PassedToService": "ecs-tasks.amazonaws.com" } },
      }),
    );
    policy.addToPrincipalPolicy(this.listTasks());
  }

  /** The sweeper's task reaper: list, describe and stop the cluster's tasks. */
  grantReapTasks(grantee: iam.IGrantable): void {
    const policy = grantee.grantPrincipal;
    policy.addToPrincipalPolicy(this.listTasks());
    policy.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: "DescribeAndStopSolverTasks",
        actions: ["ecs:DescribeTasks", "ecs:StopTask"],
        resources: [this.tasksArn],
        conditions: this.inCluster,
      }),
    );
  }
}

import { randomBytes } from "node:crypto";
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { CreateClusterCommand, CreateServiceCommand, ECSClient, RegisterTaskDefinitionCommand } from "@aws-sdk/client-ecs";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateScheduleGroupCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { CreateSecretCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { Template } from "./cloud-assembly.js";

/**
 * The stack's stateful resources, created in moto from their template declarations (keys, indexes,
 * queue settings and redrive, the generated secret), and a resolver that turns the template's `Ref`,
 * `Fn::GetAtt`, `Fn::Sub` and `Fn::Join` into what CloudFormation would give: table and bucket names,
 * queue URLs and ARNs, the secret's ARN. A reference to anything not modelled here is an error, so a
 * function whose environment names a new kind of resource fails the test until it is modelled.
 */
export const REGION = "us-east-1";
export const ACCOUNT = "123456789012"; // moto's default account
export const CREDENTIALS = { accessKeyId: "assembly", secretAccessKey: "assembly" };

type Attributes = { Ref: string } & Record<string, string>;

export class MotoResources {
  readonly physical = new Map<string, Attributes>();
  readonly queueUrls = new Map<string, string>();

  constructor(
    private readonly endpoint: string,
    private readonly template: Template,
  ) {}

  private client<T>(Client: new (config: object) => T): T {
    return new Client({ region: REGION, endpoint: this.endpoint, credentials: CREDENTIALS });
  }

  async create(): Promise<void> {
    const resources = Object.entries(this.template.Resources);
    const suffix = randomBytes(3).toString("hex");
    const dynamo = this.client(DynamoDBClient);
    const sqs = this.client(SQSClient);
    const s3 = this.client(S3Client);
    const secrets = this.client(SecretsManagerClient);
    const ecs = this.client(ECSClient);

    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::DynamoDB::Table")) {
      const p = r.Properties!;
      const name = (p.TableName as string | undefined) ?? `assembly-${id}-${suffix}`;
      const out = await dynamo.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: p.BillingMode,
          KeySchema: p.KeySchema,
          AttributeDefinitions: p.AttributeDefinitions,
          GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
        }),
      );
      if (p.TimeToLiveSpecification) await dynamo.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: p.TimeToLiveSpecification }));
      this.physical.set(id, { Ref: name, Arn: out.TableDescription!.TableArn! });
    }

    // Dead-letter queues first: a queue's redrive policy names its DLQ's ARN.
    const queues = resources.filter(([, r]) => r.Type === "AWS::SQS::Queue");
    const ordered = [...queues.filter(([, r]) => !r.Properties?.RedrivePolicy), ...queues.filter(([, r]) => r.Properties?.RedrivePolicy)];
    for (const [id, r] of ordered) {
      const p = r.Properties ?? {};
      const attributes: Record<string, string> = {};
      for (const key of ["VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds"]) {
        if (p[key] !== undefined) attributes[key] = String(p[key]);
      }
      if (p.RedrivePolicy) attributes.RedrivePolicy = JSON.stringify(this.resolve(p.RedrivePolicy));
      const name = (p.QueueName as string | undefined) ?? `assembly-${id}-${suffix}`;
      const url = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!;
      const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }))).Attributes!.QueueArn!;
      this.physical.set(id, { Ref: url, Arn: arn, QueueName: name, QueueUrl: url });
      this.queueUrls.set(id, url);
    }

    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::S3::Bucket")) {
      const name = (r.Properties?.BucketName as string | undefined) ?? `assembly-${id.toLowerCase()}-${suffix}`;
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      this.physical.set(id, { Ref: name, Arn: `arn:aws:s3:::${name}` });
    }

    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::SecretsManager::Secret")) {
      const p = r.Properties ?? {};
      const generate = p.GenerateSecretString as { SecretStringTemplate?: string; GenerateStringKey?: string; PasswordLength?: number } | undefined;
      const value = randomBytes(Math.ceil((generate?.PasswordLength ?? 32) / 2))
        .toString("hex")
        .slice(0, generate?.PasswordLength ?? 32);
      // As CloudFormation generates it: the template's JSON with the generated key added, or the value alone.
      const secretString =
        generate?.GenerateStringKey !== undefined
          ? JSON.stringify({ ...JSON.parse(generate.SecretStringTemplate ?? "{}"), [generate.GenerateStringKey]: value })
          : (p.SecretString ?? value);
      const out = await secrets.send(new CreateSecretCommand({ Name: p.Name ?? `assembly-${id}-${suffix}`, SecretString: secretString }));
      this.physical.set(id, { Ref: out.ARN!, Id: out.ARN! });
    }

    // Resources a function only passes along in calls the flows do not make (a task definition, a
    // topic): identifiers in CloudFormation's format, nothing created. The fleet's service is created
    // below, for the fleet monitor to read.
    for (const [id, r] of resources) {
      const hex = randomBytes(8).toString("hex").slice(0, 17);
      const named: Record<string, Attributes> = {
        "AWS::EC2::Subnet": { Ref: `subnet-${hex}`, SubnetId: `subnet-${hex}` },
        "AWS::EC2::SecurityGroup": { Ref: `sg-${hex}`, GroupId: `sg-${hex}` },
        "AWS::EC2::VPC": { Ref: `vpc-${hex}`, VpcId: `vpc-${hex}` },
        "AWS::ECS::TaskDefinition": {
          Ref: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${r.Properties?.Family ?? id}:1`,
          TaskDefinitionArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${r.Properties?.Family ?? id}:1`,
        },
        "AWS::IAM::Role": { Ref: `assembly-${id}`, Arn: `arn:aws:iam::${ACCOUNT}:role/assembly-${id}` },
        "AWS::SNS::Topic": { Ref: `arn:aws:sns:${REGION}:${ACCOUNT}:assembly-${id}`, TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:assembly-${id}` },
      };
      if (named[r.Type]) this.physical.set(id, named[r.Type]!);
    }

    // The triggers' schedule group: the API creates its schedules in it.
    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::Scheduler::ScheduleGroup")) {
      const name = (r.Properties?.Name as string | undefined) ?? `assembly-${id}-${suffix}`;
      const out = await this.client(SchedulerClient).send(new CreateScheduleGroupCommand({ Name: name }));
      this.physical.set(id, { Ref: name, Arn: out.ScheduleGroupArn! });
    }

    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::ECS::Cluster")) {
      const name = (r.Properties?.ClusterName as string | undefined) ?? `assembly-${id}-${suffix}`;
      const out = await ecs.send(new CreateClusterCommand({ clusterName: name }));
      this.physical.set(id, { Ref: name, Arn: out.cluster!.clusterArn! });
    }

    // The fleet's service (the fleet monitor reads and scales it), on its task definition's family.
    for (const [id, r] of resources.filter(([, r]) => r.Type === "AWS::ECS::Service")) {
      const p = r.Properties ?? {};
      const definitionId = (p.TaskDefinition as { Ref?: string }).Ref!;
      const definition = this.template.Resources[definitionId]!.Properties!;
      const containers = (definition.ContainerDefinitions as { Name: string }[]).map((c) => ({
        name: c.Name,
        image: "incumbent-solver:assembly",
        essential: true,
        cpu: Number(definition.Cpu),
        memory: Number(definition.Memory),
      }));
      const family = (definition.Family as string | undefined) ?? `assembly-${definitionId}`;
      const registered = await ecs.send(
        new RegisterTaskDefinitionCommand({ family, containerDefinitions: containers, cpu: String(definition.Cpu), memory: String(definition.Memory) }),
      );
      const arn = registered.taskDefinition!.taskDefinitionArn!;
      this.physical.set(definitionId, { Ref: arn, TaskDefinitionArn: arn });
      const name = (p.ServiceName as string | undefined) ?? `assembly-${id}-${suffix}`;
      const service = await ecs.send(
        new CreateServiceCommand({
          cluster: this.attribute((p.Cluster as { Ref: string }).Ref, "Ref"),
          serviceName: name,
          taskDefinition: arn,
          desiredCount: p.DesiredCount ?? 0,
        }),
      );
      this.physical.set(id, { Ref: service.service!.serviceArn!, Name: name, ServiceArn: service.service!.serviceArn! });
    }
  }

  /** A template value with every intrinsic resolved against the moto resources. */
  resolve(value: unknown): any {
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    const v = value as Record<string, any>;
    if ("Ref" in v) return this.attribute(v.Ref, "Ref");
    if ("Fn::GetAtt" in v) return this.attribute(v["Fn::GetAtt"][0], v["Fn::GetAtt"][1]);
    if ("Fn::Join" in v) return (this.resolve(v["Fn::Join"][1]) as string[]).join(v["Fn::Join"][0]);
    if ("Fn::Sub" in v && typeof v["Fn::Sub"] === "string") {
      return (v["Fn::Sub"] as string).replace(/\$\{([^}]+)\}/g, (_, name: string) => {
        const [id, attribute] = name.split(".");
        return this.attribute(id!, attribute ?? "Ref");
      });
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.resolve(x)]));
  }

  private attribute(id: string, attribute: string): string {
    const pseudo: Record<string, string> = {
      "AWS::Region": REGION,
      "AWS::AccountId": ACCOUNT,
      "AWS::Partition": "aws",
      "AWS::URLSuffix": "amazonaws.com",
    };
    if (attribute === "Ref" && pseudo[id]) return pseudo[id];
    const found = this.physical.get(id)?.[attribute];
    if (found === undefined) {
      const type = this.template.Resources[id]?.Type ?? "unknown";
      throw new Error(`the assembly test does not model ${attribute} of ${id} (${type}); a function's environment references it`);
    }
    return found;
  }

  /** A function's environment as CloudFormation would set it. */
  resolveEnvironment(environment: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, String(this.resolve(v))]));
  }
}

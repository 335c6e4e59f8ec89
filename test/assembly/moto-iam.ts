import { identityStatements, refTarget, resourcesOfType } from "../infra/template-guards.js";
import type { Template } from "./cloud-assembly.js";
import { ACCOUNT, CREDENTIALS, type MotoResources, REGION } from "./moto-resources.js";

/**
 * The template's roles in moto, and credentials of each obtained as the services obtain them (STS
 * AssumeRole), so every function and the worker call moto as their own role; then moto's IAM
 * enforcement is switched on (`/moto-api/reset-auth`), and a right a role lacks is a refused request.
 *
 * What moto can check, and how the template's policies are given to it:
 *  - actions: every request is checked against the role's policies, named `<signing name>:<operation>`
 *    (CloudWatch signs as `monitoring`, so `cloudwatch:X` is given as both);
 *  - resources: moto compares the resource only for SQS (the queue's ARN) and S3 (bucket and key); for
 *    every other service it asks about `*`, so those statements are given with `Resource: "*"` — their
 *    resources, like the conditions moto does not evaluate (it would refuse an Allow whose condition
 *    names a key the request lacks), are checked on the template by test/infra (rights, stack).
 *
 * IAM and STS are called with moto's query API directly (this repository carries no IAM or STS client),
 * before enforcement, when moto reads only the credential scope to route a request.
 */
export interface RoleCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

type Statement = { Effect: string; Action: string[]; Resource: unknown[] };

const MOTO_SIGNING_ALIASES: Record<string, string> = { cloudwatch: "monitoring" };
const RESOURCE_CHECKED = new Set(["sqs", "s3"]);

export class MotoIam {
  /** Credentials by role logical id. */
  readonly credentials = new Map<string, RoleCredentials>();
  /** An administrator for the test's own set-up and inspection calls, once enforcement is on. */
  admin!: { accessKeyId: string; secretAccessKey: string };

  constructor(
    private readonly endpoint: string,
    private readonly template: Template,
    private readonly resources: MotoResources,
  ) {}

  /** One IAM or STS query-API call; resolves to the XML answer. */
  private async query(service: "iam" | "sts", params: Record<string, string>): Promise<string> {
    const res = await fetch(this.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        // Routes the request to the service; moto checks no signature until enforcement is on.
        authorization: `AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/20260101/${REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: new URLSearchParams({ Version: service === "iam" ? "2010-05-08" : "2011-06-15", ...params }).toString(),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${service} ${params.Action}: ${res.status} ${text.slice(0, 500)}`);
    return text;
  }

  /** The policy document a role's statements become in moto (see the class comment). */
  motoPolicy(roleId: string): { Version: string; Statement: Statement[] } {
    const out: Statement[] = [];
    for (const s of identityStatements(this.template as never).filter((st) => st.roles.includes(roleId))) {
      const checked = s.Action.filter((a) => RESOURCE_CHECKED.has(a.split(":")[0]!));
      const unchecked = s.Action.filter((a) => !RESOURCE_CHECKED.has(a.split(":")[0]!));
      const withAliases = (actions: string[]) =>
        actions.flatMap((a) => {
          const [service, operation] = a.split(":");
          const alias = MOTO_SIGNING_ALIASES[service!];
          return alias ? [a, `${alias}:${operation}`] : [a];
        });
      if (checked.length) out.push({ Effect: s.Effect, Action: withAliases(checked), Resource: s.Resource.map((r) => this.resources.resolve(r)) });
      if (unchecked.length) out.push({ Effect: s.Effect, Action: withAliases(unchecked), Resource: ["*"] });
    }
    return { Version: "2012-10-17", Statement: out };
  }

  /** Creates `roleIds` in moto with their policies and assumes each; creates the administrator. Auth still off. */
  async create(roleIds: string[]): Promise<void> {
    const field = (xml: string, name: string) => {
      const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
      if (!m) throw new Error(`no ${name} in ${xml.slice(0, 300)}`);
      return m[1]!;
    };
    for (const roleId of roleIds) {
      const role = this.template.Resources[roleId];
      if (role?.Type !== "AWS::IAM::Role") throw new Error(`${roleId} is not a role of the template`);
      const name = `assembly-${roleId}`.slice(0, 64);
      const trust = JSON.stringify(this.resources.resolve(role.Properties!.AssumeRolePolicyDocument));
      const arn = field(await this.query("iam", { Action: "CreateRole", RoleName: name, AssumeRolePolicyDocument: trust }), "Arn");
      await this.query("iam", { Action: "PutRolePolicy", RoleName: name, PolicyName: "template", PolicyDocument: JSON.stringify(this.motoPolicy(roleId)) });
      const assumed = await this.query("sts", { Action: "AssumeRole", RoleArn: arn, RoleSessionName: "assembly", DurationSeconds: "43200" });
      this.credentials.set(roleId, {
        accessKeyId: field(assumed, "AccessKeyId"),
        secretAccessKey: field(assumed, "SecretAccessKey"),
        sessionToken: field(assumed, "SessionToken"),
      });
    }
    await this.query("iam", { Action: "CreateUser", UserName: "assembly-admin" });
    await this.query("iam", {
      Action: "PutUserPolicy",
      UserName: "assembly-admin",
      PolicyName: "admin",
      PolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] }),
    });
    const key = await this.query("iam", { Action: "CreateAccessKey", UserName: "assembly-admin" });
    this.admin = { accessKeyId: field(key, "AccessKeyId"), secretAccessKey: field(key, "SecretAccessKey") };
  }

  /** From now on moto checks every request's signature and rights. */
  async enforce(): Promise<void> {
    const res = await fetch(`${this.endpoint}/moto-api/reset-auth`, { method: "POST", body: "0" });
    if (!res.ok) throw new Error(`moto refused to enforce IAM: ${res.status} ${await res.text()}`);
  }

  /** A role's credentials as the environment of a process that runs as it. */
  environment(roleId: string): Record<string, string> {
    const c = this.credentials.get(roleId);
    if (!c) throw new Error(`no credentials for ${roleId}`);
    return { AWS_ACCESS_KEY_ID: c.accessKeyId, AWS_SECRET_ACCESS_KEY: c.secretAccessKey, AWS_SESSION_TOKEN: c.sessionToken };
  }
}

/** The role a function of the template runs as. */
export function roleOfFunction(template: Template, functionId: string): string {
  return refTarget(template.Resources[functionId]!.Properties!.Role)!;
}

/** The solver task's role (the worker's credentials) and the scheduler's (EventBridge Scheduler's). */
export function otherRoles(template: Template): { task: string; scheduler: string } {
  const [, taskDefinition] = resourcesOfType(template as never, "AWS::ECS::TaskDefinition")[0]!;
  const scheduler = resourcesOfType(template as never, "AWS::IAM::Role").find(([, r]) =>
    JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes("scheduler.amazonaws.com"),
  )![0];
  return { task: refTarget(taskDefinition.Properties.TaskRoleArn)!, scheduler };
}

export { ACCOUNT };

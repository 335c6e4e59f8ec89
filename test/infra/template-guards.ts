/**
 * Checks over a synthesized CloudFormation template, each returning the list of what it found wrong
 * (empty = fine). They are plain functions over the template JSON so the tests can run them on the
 * real template and on deliberately broken copies of it, proving each guard catches its regression.
 */
export type Json = any;
export type Template = { Resources: Record<string, { Type: string; Properties?: Json; DeletionPolicy?: string }> };

/**
 * Actions that may name `Resource: "*"`, because IAM offers nothing narrower for them:
 * - cloudwatch:PutMetricData — it has no resource type; the fleet monitor's is pinned to its namespace
 *   by the `cloudwatch:namespace` condition, which the guard requires.
 * - ecr:GetAuthorizationToken — account-wide by design (the ECS execution role pulls the image with it).
 * - xray:PutTraceSegments, xray:PutTelemetryRecords — X-Ray names no resource.
 */
export const WILDCARD_RESOURCE_ACTIONS: Record<string, { requiredConditionKey?: string }> = {
  "cloudwatch:PutMetricData": { requiredConditionKey: "cloudwatch:namespace" },
  "ecr:GetAuthorizationToken": {},
  // X-Ray has no resource types: active tracing (Lambdas) and the worker's daemon sidecar.
  "xray:PutTraceSegments": {},
  "xray:PutTelemetryRecords": {},
  "xray:GetSamplingRules": {},
  "xray:GetSamplingTargets": {},
  "xray:GetSamplingStatisticSummaries": {},
};

/** Anything that starts a task per job: RunTask in a policy, or a function named after the dispatcher. */
export function perJobTaskViolations(t: Template): string[] {
  const found: string[] = [];
  for (const s of identityStatements(t))
    if (s.Action.some((a) => a === "ecs:RunTask" || a === "ecs:StartTask")) found.push(`${s.source}: grants ${s.Action.join(", ")}`);
  for (const [id, f] of resourcesOfType(t, "AWS::Lambda::Function"))
    if (/dispatcher/i.test(JSON.stringify(f.Properties?.FunctionName ?? id))) found.push(`${id}: a dispatcher function`);
  if (JSON.stringify(t).includes("RunTask")) found.push("the template mentions RunTask");
  return found;
}

export const resourcesOfType = (t: Template, type: string): [string, Json][] =>
  Object.entries(t.Resources).filter(([, r]) => r.Type === type) as [string, Json][];

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The logical id a `{ Ref }` or `{ Fn::GetAtt: [id, attr] }` points at, if any. */
export function refTarget(value: Json): string | undefined {
  if (value && typeof value === "object") {
    if (typeof value.Ref === "string") return value.Ref;
    if (Array.isArray(value["Fn::GetAtt"])) return value["Fn::GetAtt"][0];
  }
  return undefined;
}

/** Every logical id mentioned anywhere inside a value (Ref, GetAtt, inside Joins…). */
export function referencedIds(value: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => referencedIds(v, into));
  else if (value && typeof value === "object") {
    const target = refTarget(value);
    if (target) into.add(target);
    Object.values(value).forEach((v) => referencedIds(v, into));
  }
  return into;
}

export interface Statement {
  source: string;
  Effect: string;
  Action: string[];
  Resource: Json[];
  Condition?: Record<string, Record<string, Json>>;
}

/** Identity-policy statements: AWS::IAM::Policy documents and roles' inline policies. */
export function identityStatements(t: Template): (Statement & { roles: string[] })[] {
  const out: (Statement & { roles: string[] })[] = [];
  const push = (source: string, roles: string[], doc: Json) => {
    for (const s of asArray(doc?.Statement)) {
      out.push({ source, roles, Effect: s.Effect, Action: asArray(s.Action), Resource: asArray(s.Resource), Condition: s.Condition });
    }
  };
  for (const [id, policy] of resourcesOfType(t, "AWS::IAM::Policy")) {
    push(
      id,
      asArray(policy.Properties.Roles)
        .map(refTarget)
        .filter((r): r is string => !!r),
      policy.Properties.PolicyDocument,
    );
  }
  for (const [id, policy] of resourcesOfType(t, "AWS::IAM::ManagedPolicy")) {
    push(
      id,
      asArray(policy.Properties.Roles)
        .map(refTarget)
        .filter((r): r is string => !!r),
      policy.Properties.PolicyDocument,
    );
  }
  for (const [id, role] of resourcesOfType(t, "AWS::IAM::Role")) {
    for (const p of asArray(role.Properties?.Policies)) push(`${id}/${(p as Json).PolicyName}`, [id], (p as Json).PolicyDocument);
  }
  return out;
}

/** Allow statements on `Resource: "*"` outside the documented exceptions, and wildcard actions. */
export function wildcardViolations(t: Template): string[] {
  const found: string[] = [];
  for (const s of identityStatements(t)) {
    if (s.Effect !== "Allow") continue;
    for (const action of s.Action) {
      if (action === "*" || action.endsWith(":*")) found.push(`${s.source}: wildcard action ${action}`);
    }
    if (!s.Resource.includes("*")) continue;
    for (const action of s.Action) {
      const allowed = WILDCARD_RESOURCE_ACTIONS[action];
      if (!allowed) {
        found.push(`${s.source}: ${action} on Resource "*"`);
        continue;
      }
      const key = allowed.requiredConditionKey;
      if (key && !Object.values(s.Condition ?? {}).some((c) => key in c)) found.push(`${s.source}: ${action} on "*" without a ${key} condition`);
    }
  }
  return found;
}

/**
 * Every work queue (each queue that is not itself a DLQ — a redrive target, or named `…-dlq` — whether
 * a Lambda consumes it or workers poll it) redrives to a DLQ of this template.
 */
export function redriveViolations(t: Template): string[] {
  const found: string[] = [];
  const queues = Object.fromEntries(resourcesOfType(t, "AWS::SQS::Queue"));
  const dlqs = new Set(Object.values(queues).map((q) => refTarget(q.Properties?.RedrivePolicy?.deadLetterTargetArn)));
  const work = Object.keys(queues).filter((id) => !dlqs.has(id) && !String(queues[id].Properties?.QueueName ?? "").endsWith("-dlq"));
  if (work.length === 0) found.push("no work queue");
  for (const id of work) {
    const redrive = queues[id].Properties?.RedrivePolicy;
    const dlq = refTarget(redrive?.deadLetterTargetArn);
    if (!redrive) found.push(`${id}: a work queue with no redrive policy`);
    else if (!dlq || !(dlq in queues)) found.push(`${id}: its dead-letter target is not a queue of this stack`);
    else if (!(redrive.maxReceiveCount >= 1)) found.push(`${id}: maxReceiveCount missing`);
  }
  return found;
}

/** Every DLQ has a depth alarm and every consumed queue an oldest-message alarm, each with an action. */
export function alarmViolations(t: Template): string[] {
  const found: string[] = [];
  const alarms = resourcesOfType(t, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
  const alarmOn = (queueId: string, metric: string) =>
    alarms.find(
      (a) =>
        a.Namespace === "AWS/SQS" &&
        a.MetricName === metric &&
        asArray(a.Dimensions).some((d: Json) => d.Name === "QueueName" && refTarget(d.Value) === queueId) &&
        asArray(a.AlarmActions).length > 0,
    );
  for (const [id, q] of resourcesOfType(t, "AWS::SQS::Queue")) {
    const dlq = refTarget(q.Properties?.RedrivePolicy?.deadLetterTargetArn);
    if (!dlq) continue;
    if (!alarmOn(dlq, "ApproximateNumberOfMessagesVisible")) found.push(`${dlq}: no depth alarm with an action`);
    if (!alarmOn(id, "ApproximateAgeOfOldestMessage")) found.push(`${id}: no oldest-message-age alarm with an action`);
  }
  return found;
}

/** The queue a function name consumes and its visibility timeout vs the function's timeout. */
export function consumerTimeouts(t: Template): { queue: string; visibility: number; functionTimeout: number }[] {
  const functions = Object.fromEntries(resourcesOfType(t, "AWS::Lambda::Function"));
  const queues = Object.fromEntries(resourcesOfType(t, "AWS::SQS::Queue"));
  return resourcesOfType(t, "AWS::Lambda::EventSourceMapping").map(([, m]) => {
    const queue = refTarget(m.Properties.EventSourceArn)!;
    const fn = functions[refTarget(m.Properties.FunctionName)!];
    return { queue, visibility: queues[queue]?.Properties?.VisibilityTimeout ?? 30, functionTimeout: fn?.Properties?.Timeout ?? 3 };
  });
}

/** A visibility timeout shorter than the work one of its messages starts. */
export function visibilityViolations(t: Template, jobsQueueName: string, minimumJobsVisibility: number): string[] {
  const found: string[] = [];
  for (const c of consumerTimeouts(t)) {
    if (c.visibility < c.functionTimeout) found.push(`${c.queue}: visibility ${c.visibility} s < consumer timeout ${c.functionTimeout} s`);
  }
  const jobs = resourcesOfType(t, "AWS::SQS::Queue").find(([, q]) => q.Properties?.QueueName === jobsQueueName);
  if (!jobs) found.push(`no queue named ${jobsQueueName}`);
  else if (!(jobs[1].Properties.VisibilityTimeout >= minimumJobsVisibility)) {
    found.push(`${jobsQueueName}: visibility ${jobs[1].Properties.VisibilityTimeout} s < the longest job, ${minimumJobsVisibility} s`);
  }
  return found;
}

/**
 * A template value as a string: pseudo parameters as `${AWS::Region}`, other references as
 * `${Ref:<id>}` / `${GetAtt:<id>.<attr>}`, joins and subs rendered. Enough to compare an ARN a policy
 * names with the ARN a resource will have.
 */
export function renderValue(value: Json): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map(renderValue).join(",");
  if (value && typeof value === "object") {
    if (typeof value.Ref === "string") return value.Ref.startsWith("AWS::") ? `\${${value.Ref}}` : `\${Ref:${value.Ref}}`;
    if (Array.isArray(value["Fn::GetAtt"])) return `\${GetAtt:${value["Fn::GetAtt"].join(".")}}`;
    if (Array.isArray(value["Fn::Join"])) return (value["Fn::Join"][1] as Json[]).map(renderValue).join(value["Fn::Join"][0]);
    if (typeof value["Fn::Sub"] === "string") return value["Fn::Sub"];
  }
  return JSON.stringify(value);
}

/** IAM's ArnLike / StringLike: `*` any run of characters, `?` one character. */
export function globMatches(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return re.test(text);
}

const THIS_ACCOUNT = "${AWS::AccountId}";

/**
 * Who may publish to a topic: every source (an alarm, a rule) whose notifications go to an SNS topic
 * of this template must find, in that topic's policy, an Allow of `sns:Publish` for its service
 * principal whose conditions admit its own ARN and this account only — a topic policy replaces SNS's
 * default one, so a publisher it does not name is refused. A statement for a service with no source
 * condition (any account's alarms or rules could publish) is reported too.
 */
export function topicPublishViolations(t: Template): string[] {
  const found: string[] = [];
  const topics = new Set(resourcesOfType(t, "AWS::SNS::Topic").map(([id]) => id));
  const statementsFor = (topicId: string) =>
    resourcesOfType(t, "AWS::SNS::TopicPolicy")
      .filter(([, p]) => asArray(p.Properties.Topics).some((x: Json) => refTarget(x) === topicId))
      .flatMap(([, p]) => asArray(p.Properties.PolicyDocument?.Statement) as Json[]);
  const principalsOf = (s: Json): string[] =>
    s.Principal === "*" ? ["*"] : [...asArray(s.Principal?.Service), ...asArray(s.Principal?.AWS)].map((p) => (typeof p === "string" ? p : renderValue(p)));
  const sourceArnPatterns = (s: Json): string[] =>
    Object.entries(s.Condition ?? {})
      .filter(([op]) => /^(ArnLike|ArnEquals|StringLike|StringEquals)$/.test(op))
      .flatMap(([, c]) => asArray((c as Json)["aws:SourceArn"]))
      .map(renderValue);
  const sourceAccounts = (s: Json): string[] =>
    Object.entries(s.Condition ?? {})
      .filter(([op]) => /^String(Equals|Like)$/.test(op))
      .flatMap(([, c]) => asArray((c as Json)["aws:SourceAccount"]))
      .map(renderValue);

  const publishers: { source: string; topicId: string; service: string; arn: string }[] = [];
  for (const [id, a] of resourcesOfType(t, "AWS::CloudWatch::Alarm")) {
    const actions = [...asArray(a.Properties.AlarmActions), ...asArray(a.Properties.OKActions), ...asArray(a.Properties.InsufficientDataActions)];
    for (const topicId of new Set(actions.map(refTarget).filter((x): x is string => !!x && topics.has(x)))) {
      publishers.push({
        source: `alarm ${a.Properties.AlarmName ?? id}`,
        topicId,
        service: "cloudwatch.amazonaws.com",
        arn: `arn:\${AWS::Partition}:cloudwatch:\${AWS::Region}:${THIS_ACCOUNT}:alarm:${renderValue(a.Properties.AlarmName ?? id)}`,
      });
    }
  }
  for (const [id, r] of resourcesOfType(t, "AWS::Events::Rule")) {
    for (const target of asArray(r.Properties.Targets) as Json[]) {
      const topicId = refTarget(target.Arn);
      if (!topicId || !topics.has(topicId)) continue;
      publishers.push({
        source: `rule ${r.Properties.Name ?? id}`,
        topicId,
        service: "events.amazonaws.com",
        arn: `arn:\${AWS::Partition}:events:\${AWS::Region}:${THIS_ACCOUNT}:rule/${renderValue(r.Properties.Name ?? id)}`,
      });
    }
  }

  for (const p of publishers) {
    const statements = statementsFor(p.topicId).filter((s) => asArray(s.Action).includes("sns:Publish"));
    const denied = statements.some((s) => s.Effect === "Deny" && !s.Condition && (principalsOf(s).includes("*") || principalsOf(s).includes(p.service)));
    const allowed = statements.some(
      (s) =>
        s.Effect === "Allow" &&
        principalsOf(s).includes(p.service) &&
        sourceAccounts(s).includes(THIS_ACCOUNT) &&
        sourceArnPatterns(s).some((pattern) => globMatches(pattern, p.arn)),
    );
    if (denied || !allowed) found.push(`${p.source}: topic ${p.topicId} does not let ${p.service} publish for it`);
  }
  for (const topicId of topics) {
    for (const s of statementsFor(topicId)) {
      if (s.Effect !== "Allow") continue;
      for (const principal of principalsOf(s)) {
        if (principal === "*" && !s.Condition) found.push(`${topicId}: statement ${s.Sid ?? "?"} lets anyone publish`);
        else if (principal.endsWith(".amazonaws.com") && (sourceArnPatterns(s).length === 0 || !sourceAccounts(s).includes(THIS_ACCOUNT)))
          found.push(`${topicId}: statement ${s.Sid ?? "?"} admits ${principal} from any source (no aws:SourceArn and aws:SourceAccount conditions)`);
      }
    }
  }
  return found;
}

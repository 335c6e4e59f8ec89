import { Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

/**
 * Acknowledging a finding of cdk-nag's AwsSolutions pack (test/infra/nag.test.ts runs it on every stage
 * and fails on any finding not acknowledged): always on the construct the finding is about, never on
 * the stack, always with the reason in words, so a new finding anywhere else still fails.
 */
export function acknowledgeFinding(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: rule, reason });
}

/**
 * A wildcard resource (`AwsSolutions-IAM5`) granted to `principal`, acknowledged finding by finding:
 * the resource as cdk-nag names it (`<LogicalId.Arn>/index/*`, `arn:<AWS::Partition>:…`).
 */
export function acknowledgeWildcardResource(principal: IConstruct, resource: string, reason: string): void {
  acknowledgeFinding(principal, `AwsSolutions-IAM5[Resource::${nagName(Stack.of(principal).resolve(resource))}]`, reason);
}

function nagName(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(nagName).join("");
  const v = (value ?? {}) as { Ref?: unknown; "Fn::GetAtt"?: unknown; "Fn::Join"?: unknown };
  if (typeof v.Ref === "string") return `<${v.Ref}>`;
  if (Array.isArray(v["Fn::GetAtt"])) return `<${v["Fn::GetAtt"].join(".")}>`;
  if (Array.isArray(v["Fn::Join"])) {
    const [separator, parts] = v["Fn::Join"] as [string, unknown[]];
    return parts.map(nagName).join(separator);
  }
  throw new Error(`cannot name ${JSON.stringify(value)} as cdk-nag does`);
}

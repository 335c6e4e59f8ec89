import { ArnFormat, Stack } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import type { Construct } from "constructs";

export interface AlarmTopicProps {
  namePrefix: string;
  /** An e-mail subscription, optional. */
  alarmEmail?: string;
}

/**
 * The topic every alarm and alert publishes to, with the resource policy that lets them.
 *
 * A topic policy replaces SNS's default one, and `enforceSSL` writes one: without a statement for
 * them, CloudWatch alarms are refused ("not authorized to perform SNS:Publish") and only what grants
 * itself a statement reaches the topic. So the policy names both publishers, each scoped to this
 * account and to its own kind of source: CloudWatch for this account's alarms in this region, and
 * EventBridge for this stage's rules (`<namePrefix>-*`). Rules target the topic through an imported
 * reference (`publishingTarget`), so no construct adds an unscoped statement beside these.
 *
 * Not KMS-encrypted: CloudWatch alarms cannot publish to a topic under the AWS-managed SNS key, and
 * alarm notifications carry no payload data.
 */
export function createAlarmTopic(scope: Construct, id: string, props: AlarmTopicProps): sns.Topic {
  const topic = new sns.Topic(scope, id, { topicName: `${props.namePrefix}-alarms`, enforceSSL: true });
  if (props.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: "CloudWatchAlarmsOfThisAccount",
      principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
      actions: ["sns:Publish"],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { "aws:SourceAccount": stack.account },
        ArnLike: {
          "aws:SourceArn": stack.formatArn({ service: "cloudwatch", resource: "alarm", resourceName: "*", arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
        },
      },
    }),
  );
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: "EventBridgeRulesOfThisStage",
      principals: [new iam.ServicePrincipal("events.amazonaws.com")],
      actions: ["sns:Publish"],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { "aws:SourceAccount": stack.account },
        ArnLike: {
          "aws:SourceArn": stack.formatArn({
            service: "events",
            resource: "rule",
            resourceName: `${props.namePrefix}-*`,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  return topic;
}

/**
 * The topic as an EventBridge rule's target should see it: an imported reference, so the target adds
 * no policy statement of its own (the topic's policy already admits this stage's rules).
 */
export function publishingTarget(scope: Construct, id: string, topic: sns.ITopic): sns.ITopic {
  return sns.Topic.fromTopicArn(scope, id, topic.topicArn);
}

import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { acknowledgeFinding, acknowledgeWildcardResource } from "./nag.js";
import type { BlobFamily } from "../functions/core/blob/keys.js";
import { TABLE_KEYS, tableDefinition } from "../functions/core/store/dynamo.js";

export interface DataProps {
  namePrefix: string;
  production: boolean;
  /** Blobs expire after this many days; 0 keeps them. */
  blobExpirationDays: number;
  /** Days the blob bucket's access logs are kept (the stage's log retention). */
  accessLogRetentionDays: number;
}

/**
 * Every DynamoDB action the store can use (functions/core/store: Get, Put, Update, Delete, Query,
 * BatchWrite; the health check's DescribeTable) and nothing else: no Scan, no streams. Each role is
 * granted the ones its bundle's code sends (test/infra/rights.test.ts derives them from the source).
 */
export const TABLE_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:Query",
  "dynamodb:BatchWriteItem",
  "dynamodb:DescribeTable",
] as const;
export type TableAction = (typeof TABLE_ACTIONS)[number];

/** Item access to the table and its indexes (queries on gsi1 need the index ARN): the actions named. */
export function grantTableItems(table: dynamodb.ITable, grantee: iam.IRole, actions: readonly TableAction[]): iam.Grant {
  const indexes = `${table.tableArn}/index/*`;
  acknowledgeWildcardResource(
    grantee,
    indexes,
    "Queries on the table's global secondary indexes need the index ARNs; index/* names this table's own indexes only.",
  );
  return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [table.tableArn, indexes] });
}

/**
 * What a role may do with blobs. `read`: GetObject on any key, plus ListBucket so that a missing key
 * answers NoSuchKey (which the blob store reads as "absent") rather than AccessDenied — keys are read
 * back from items, whatever family wrote them. `write` and `delete`: only under the key families
 * (`results/`, …) the bundle's code writes or deletes (functions/core/blob/keys.ts, BlobFamily;
 * the rights test derives each bundle's from its source).
 */
export interface BlobAccess {
  read?: boolean;
  write?: readonly BlobFamily[];
  delete?: readonly BlobFamily[];
}

export function grantBlobs(bucket: s3.IBucket, grantee: iam.IRole, access: BlobAccess): void {
  if (access.read) {
    acknowledgeWildcardResource(
      grantee,
      bucket.arnForObjects("*"),
      "Blob keys are read back from items (a problem, a result, a delivery body), whichever family wrote them; reading is not scoped further than the bucket.",
    );
    iam.Grant.addToPrincipal({ grantee, actions: ["s3:GetObject"], resourceArns: [bucket.arnForObjects("*")] });
    iam.Grant.addToPrincipal({ grantee, actions: ["s3:ListBucket"], resourceArns: [bucket.bucketArn] });
  }
  const under = (families: readonly BlobFamily[]) =>
    [...families].sort().map((family) => {
      const keys = bucket.arnForObjects(`${family}*`);
      acknowledgeWildcardResource(
        grantee,
        keys,
        `Keys of the ${family} family carry an organization and ids not known at deploy; writes and deletes are scoped to the family the code uses (test/infra/rights.test.ts).`,
      );
      return keys;
    });
  if (access.write?.length) iam.Grant.addToPrincipal({ grantee, actions: ["s3:PutObject"], resourceArns: under(access.write) });
  if (access.delete?.length) iam.Grant.addToPrincipal({ grantee, actions: ["s3:DeleteObject"], resourceArns: under(access.delete) });
}

const ATTRIBUTE_TYPES: Record<string, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
  B: dynamodb.AttributeType.BINARY,
};

/**
 * The single table (its item layout: docs/decisions.md, Infrastructure) and the bucket for payloads too large for an item.
 *
 * The table is built from the store's own `tableDefinition()` — keys, attribute types, every GSI —
 * so the deployed table and the one the local stack and the tests create cannot drift apart.
 */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  /** The table's global secondary indexes, by name (alarms count their throttles too). */
  readonly indexNames: string[] = [];
  readonly bucket: s3.Bucket;
  /** The blob bucket's server access logs. */
  readonly accessLogs: s3.Bucket;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const definition = tableDefinition(props.namePrefix);
    const attribute = (name: string): dynamodb.Attribute => {
      const type = definition.AttributeDefinitions?.find((a) => a.AttributeName === name)?.AttributeType;
      if (!type || !ATTRIBUTE_TYPES[type]) throw new Error(`table definition: no type for attribute ${name}`);
      return { name, type: ATTRIBUTE_TYPES[type] };
    };
    const keyOf = (schema: { AttributeName?: string; KeyType?: string }[] | undefined, keyType: "HASH" | "RANGE") =>
      schema?.find((k) => k.KeyType === keyType)?.AttributeName;

    // Data outlives a production stack; a dev stack is torn down with everything in it.
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new dynamodb.Table(this, "Table", {
      tableName: definition.TableName,
      partitionKey: attribute(keyOf(definition.KeySchema, "HASH") ?? TABLE_KEYS.partitionKey),
      sortKey: attribute(keyOf(definition.KeySchema, "RANGE") ?? TABLE_KEYS.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.production,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
    });
    for (const gsi of definition.GlobalSecondaryIndexes ?? []) {
      const sortKey = keyOf(gsi.KeySchema, "RANGE");
      const projection = gsi.Projection?.ProjectionType;
      this.indexNames.push(gsi.IndexName!);
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.IndexName!,
        partitionKey: attribute(keyOf(gsi.KeySchema, "HASH")!),
        ...(sortKey ? { sortKey: attribute(sortKey) } : {}),
        projectionType:
          projection === "KEYS_ONLY"
            ? dynamodb.ProjectionType.KEYS_ONLY
            : projection === "INCLUDE"
              ? dynamodb.ProjectionType.INCLUDE
              : dynamodb.ProjectionType.ALL,
        ...(projection === "INCLUDE" ? { nonKeyAttributes: gsi.Projection?.NonKeyAttributes ?? [] } : {}),
      });
    }

    const lifecycleRules: s3.LifecycleRule[] = [
      { id: "abort-incomplete-uploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
      // Blobs are written once and read rarely after their run: let S3 move cold ones to cheaper tiers.
      { id: "intelligent-tiering", transitions: [{ storageClass: s3.StorageClass.INTELLIGENT_TIERING, transitionAfter: Duration.days(0) }] },
    ];
    if (props.production) lifecycleRules.push({ id: "noncurrent-versions", noncurrentVersionExpiration: Duration.days(30) });
    if (props.blobExpirationDays > 0) lifecycleRules.push({ id: "expire-blobs", expiration: Duration.days(props.blobExpirationDays) });

    // Server access logs of the blob bucket: who read or wrote which key, for an audit. The log bucket
    // keeps them as long as the stage keeps logs, and does not log itself.
    this.accessLogs = new s3.Bucket(this, "BlobAccessLogs", {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      enforceSSL: true,
      lifecycleRules: [{ id: "expire-access-logs", expiration: Duration.days(props.accessLogRetentionDays) }],
      removalPolicy,
      autoDeleteObjects: !props.production,
    });
    acknowledgeFinding(
      this.accessLogs,
      "AwsSolutions-S1",
      "This is the access-log bucket of the blob bucket; logging its own access would log the log deliveries.",
    );
    this.bucket = new s3.Bucket(this, "Blobs", {
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: "blobs/",
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: props.production,
      lifecycleRules,
      removalPolicy,
      autoDeleteObjects: !props.production,
    });
  }
}

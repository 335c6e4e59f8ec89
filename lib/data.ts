import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { TABLE_KEYS, tableDefinition } from "../functions/core/store/dynamo.js";

export interface DataProps {
  namePrefix: string;
  production: boolean;
  /** Blobs expire after this many days; 0 keeps them. */
  blobExpirationDays: number;
}

/**
 * The DynamoDB calls the store makes (functions/core/store: Get, Put, Update, Delete, Query,
 * BatchWrite; the health check's DescribeTable) and nothing else: no Scan, no streams. A test keeps this
 * list in step with the commands the code sends.
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

/** Item access to the table and its indexes (queries on gsi1 need the index ARN): every store action, or fewer. */
export function grantTableItems(
  table: dynamodb.ITable,
  grantee: iam.IGrantable,
  actions: readonly (typeof TABLE_ACTIONS)[number][] = TABLE_ACTIONS,
): iam.Grant {
  return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [table.tableArn, `${table.tableArn}/index/*`] });
}

/**
 * Blob access: read (GetObject, plus ListBucket so that a missing key answers NoSuchKey — which the
 * blob store turns into "absent" — rather than AccessDenied) and, for writers, PutObject. Nothing
 * deletes blobs; lifecycle rules expire them.
 */
export function grantBlobs(bucket: s3.IBucket, grantee: iam.IGrantable, access: { write: boolean }): void {
  iam.Grant.addToPrincipal({ grantee, actions: ["s3:GetObject"], resourceArns: [bucket.arnForObjects("*")] });
  iam.Grant.addToPrincipal({ grantee, actions: ["s3:ListBucket"], resourceArns: [bucket.bucketArn] });
  if (access.write) iam.Grant.addToPrincipal({ grantee, actions: ["s3:PutObject"], resourceArns: [bucket.arnForObjects("*")] });
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

    this.bucket = new s3.Bucket(this, "Blobs", {
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

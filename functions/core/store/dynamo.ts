import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, UpdateTimeToLiveCommand, type CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { withoutRequestLogging } from "../aws/quiet-client.js";
import type { Config } from "../config.js";

/**
 * The single table. Keys are strings: `pk`/`sk`, one GSI (`gsi1pk`/`gsi1sk`) for lookups
 * that cross partitions, and `ttl` (epoch seconds) for expiring items. The CDK data construct and the
 * local stack both create the table from this definition, so they cannot drift.
 */
export const TABLE_KEYS = {
  partitionKey: "pk",
  sortKey: "sk",
  gsi1: { name: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
  ttlAttribute: "ttl",
} as const;

export function tableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, gsi1 } = TABLE_KEYS;
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: "S" },
      { AttributeName: sortKey, AttributeType: "S" },
      { AttributeName: gsi1.partitionKey, AttributeType: "S" },
      { AttributeName: gsi1.sortKey, AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: "HASH" },
      { AttributeName: sortKey, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: gsi1.name,
        KeySchema: [
          { AttributeName: gsi1.partitionKey, KeyType: "HASH" },
          { AttributeName: gsi1.sortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
}

export interface AwsClientOptions {
  region: string;
  endpoint?: string;
}

export function awsClientOptions(config: Pick<Config, "region" | "awsEndpointUrl">): AwsClientOptions {
  return config.awsEndpointUrl ? { region: config.region, endpoint: config.awsEndpointUrl } : { region: config.region };
}

export function createDynamoClient(options: AwsClientOptions): DynamoDBClient {
  return withoutRequestLogging(new DynamoDBClient({ ...options, maxAttempts: 3 }));
}

export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    // Integers past 2^53 (a big-M coefficient) are stored as the doubles they are; DynamoDB keeps 38 digits.
    // An object is a map whatever keys it has: the marshaller tells a plain object by its `constructor`,
    // so a user-named key `constructor` (an override field, a dataset's element) made it refuse the item (a 500).
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true, allowImpreciseNumbers: true },
    // ...and read back as those doubles (the default gives a BigInt, which JSON cannot write).
    unmarshallOptions: { wrapNumbers: (value: string) => Number(value) },
  });
}

/** Creates the table when missing (local stack, tests); a no-op on a table that exists. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== "ResourceNotFoundException") throw error;
  }
  await client.send(new CreateTableCommand(tableDefinition(tableName)));
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === "ACTIVE") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true } }),
    );
  } catch {
    // dynalite has no TTL API; expiry is then enforced by readers checking `ttl` (see isExpired).
  }
}

export const isConditionFailure = (error: unknown): boolean => (error as { name?: string })?.name === "ConditionalCheckFailedException";

/**
 * DynamoDB refuses a key past its size limits (partition 2,048 bytes, sort 1,024) with a
 * ValidationException. No item can be stored under such a key, so a read of one finds nothing.
 */
export const isKeyTooLarge = (error: unknown): boolean => {
  const e = error as { name?: string; message?: string };
  return e?.name === "ValidationException" && /key.*(size|length)|size limit/i.test(e.message ?? "");
};

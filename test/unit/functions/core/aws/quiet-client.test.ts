import { describe, expect, it } from "vitest";
import { createSqsClient } from "../../../../../functions/core/queue/sqs.js";
import { createDocumentClient, createDynamoClient } from "../../../../../functions/core/store/dynamo.js";

const names = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().join(" ");

describe("the service's AWS clients", () => {
  it("run without the SDK's request-logging middleware (the DynamoDB document client too), and keep signing and retries", () => {
    const dynamo = createDynamoClient({ region: "eu-west-1" });
    for (const client of [dynamo, createDocumentClient(dynamo), createSqsClient({ region: "eu-west-1", sqsEndpointUrl: "" })]) {
      expect(names(client)).not.toMatch(/loggerMiddleware/);
      expect(names(client)).toMatch(/retryMiddleware/);
    }
  });
});

/**
 * Seals every webhook secret stored before secrets were sealed at rest (issue 25). Each is sealed anyway
 * at its trigger's next delivery; this does all of them at once, e.g. right after a deploy. Safe to run
 * again and beside a running service: a secret changed meanwhile is left to its new value.
 *
 *   TABLE_NAME=… WEBHOOK_KEY_SECRET_ARN=… npx tsx scripts/seal-webhook-secrets.ts     (AWS)
 *   npx tsx scripts/seal-webhook-secrets.ts                                           (local: WEBHOOK_KEY_FILE)
 */
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { loadConfig } from "../functions/core/config.js";
import { createServices } from "../functions/core/services.js";
import { isSealed } from "../functions/core/webhooks/secret-box.js";
import { secretsManagerWebhookKey } from "../functions/core/webhooks/secret-key-aws.js";

const config = loadConfig(process.env);
const services = createServices({ config, jwtSecret: "", webhookKeyFromSecretsManager: secretsManagerWebhookKey(config) });
let sealed = 0;
let start: Record<string, unknown> | undefined;
do {
  const page = await services.table.doc.send(
    new ScanCommand({
      TableName: config.tableName,
      FilterExpression: "begins_with(sk, :trg) AND attribute_type(webhook_secret, :s)",
      ExpressionAttributeValues: { ":trg": "TRG#", ":s": "S" },
      ProjectionExpression: "org_id, id, webhook_secret",
      ExclusiveStartKey: start,
    }),
  );
  for (const item of (page.Items ?? []) as { org_id: string; id: string; webhook_secret: string }[]) {
    if (isSealed(item.webhook_secret)) continue;
    const box = await services.webhookSecrets.seal(item.webhook_secret, item.id);
    if (await services.triggerStore.replaceWebhookSecret(item.org_id, { id: item.id, was: item.webhook_secret, now: box })) sealed++;
  }
  start = page.LastEvaluatedKey;
} while (start);
process.stdout.write(`sealed ${sealed} webhook secret(s)\n`);

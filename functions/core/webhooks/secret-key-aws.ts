import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { Config } from "../config.js";

/**
 * The webhook key from Secrets Manager (WEBHOOK_KEY_SECRET_ARN), for WebhookSecretBox.fromConfig. Its own
 * module: only the Lambdas that seal or open webhook secrets import it, so only their roles need
 * secretsmanager:GetSecretValue on the key. The material is the secret's JSON `{ "secret": … }` (CDK's
 * generated form) or the string itself.
 */
export const secretsManagerWebhookKey =
  (config: Pick<Config, "region" | "awsEndpointUrl">) =>
  async (secretArn: string): Promise<Buffer> => {
    const client = new SecretsManagerClient({ region: config.region, ...(config.awsEndpointUrl ? { endpoint: config.awsEndpointUrl } : {}) });
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    const value = out.SecretString ?? "";
    let material = value;
    try {
      material = (JSON.parse(value) as Record<string, string>).secret ?? value;
    } catch {
      // a plain string
    }
    if (material.length < 32) throw new Error("the webhook key secret holds too little key material (at least 32 characters)");
    return Buffer.from(material, "utf8");
  };

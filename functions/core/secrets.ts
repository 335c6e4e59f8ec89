import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { Config } from "./config.js";

/**
 * The JWT signing secret: JWT_SECRET when set (local stack, tests), else the Secrets Manager secret
 * named by JWT_SECRET_ARN (AWS), read once per cold start.
 */
export async function resolveJwtSecret(config: Pick<Config, "jwtSecret" | "jwtSecretArn" | "region" | "awsEndpointUrl">): Promise<string> {
  if (config.jwtSecret) return config.jwtSecret;
  if (!config.jwtSecretArn) throw new Error("config: set JWT_SECRET or JWT_SECRET_ARN");
  const client = new SecretsManagerClient({ region: config.region, ...(config.awsEndpointUrl ? { endpoint: config.awsEndpointUrl } : {}) });
  const out = await client.send(new GetSecretValueCommand({ SecretId: config.jwtSecretArn }));
  const value = out.SecretString ?? "";
  // CDK's generated secrets are JSON ({"secret": "…"}) or a plain string; accept both.
  try {
    const parsed = JSON.parse(value) as Record<string, string>;
    return parsed.secret ?? parsed.jwt_secret ?? value;
  } catch {
    return value;
  }
}

import { createHmac, randomBytes } from "node:crypto";

/**
 * How a webhook delivery is signed. Two signatures travel on every request, both over the raw body
 * exactly as sent:
 *
 *  - `X-Incumbent-Signature`: hex HMAC-SHA256 of the body, keyed with the trigger's webhook_secret
 *    (its UTF-8 bytes). The spec's signature.
 *  - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): `v1,<base64 HMAC-SHA256
 *    of "<id>.<timestamp>.<body>">`. The timestamp is signed, so a receiver that rejects old timestamps
 *    rejects replays, and the id is the same on every retry, so a receiver can drop duplicates. The key
 *    follows that standard: a secret written `whsec_<base64>` is the base64-decoded bytes, any other
 *    secret its UTF-8 bytes (so its libraries verify our deliveries unchanged).
 */
export const INCUMBENT_SIGNATURE_HEADER = "X-Incumbent-Signature";

export function bodySignatureHex(secret: string, rawBody: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(rawBody, "utf8").digest("hex");
}

/** A webhook secret for a trigger whose webhook came without one: Standard Webhooks' `whsec_<base64>` form, 192 random bits. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`;

/** The HMAC key Standard Webhooks derives from a secret. */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith("whsec_")) {
    const decoded = Buffer.from(secret.slice("whsec_".length), "base64");
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, "utf8");
}

/** What a delivery is signed over: its id, when it was sent, and the exact body. */
export interface SignedDelivery {
  id: string;
  timestampSeconds: number;
  rawBody: string;
}

export function standardWebhooksSignature(secret: string, { id, timestampSeconds, rawBody }: SignedDelivery): string {
  const mac = createHmac("sha256", standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${rawBody}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** Every header a delivery attempt carries besides the transport's own. */
export function deliveryHeaders(secret: string, { id: deliveryId, timestampSeconds, rawBody }: SignedDelivery): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "User-Agent": "Incumbent-Webhooks/1",
    [INCUMBENT_SIGNATURE_HEADER]: bodySignatureHex(secret, rawBody),
    "webhook-id": deliveryId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": standardWebhooksSignature(secret, { id: deliveryId, timestampSeconds, rawBody }),
  };
}

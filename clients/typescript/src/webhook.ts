/**
 * Verifying a webhook delivery: `X-Incumbent-Signature` is the hex HMAC-SHA256 of the raw body (the
 * bytes as received, before any JSON parsing), keyed with the trigger's webhook_secret as UTF-8.
 * Web Crypto, so the same code runs in Node 20, in a browser and in edge runtimes.
 */
export const SIGNATURE_HEADER = "X-Incumbent-Signature";

export interface WebhookSignatureCheck {
  /** The body exactly as received: a string, or its bytes. */
  rawBody: string | Uint8Array;
  /** The X-Incumbent-Signature header's value (null or undefined when absent: not verified). */
  signature: string | null | undefined;
  /** The trigger's webhook_secret. */
  secret: string;
}

const encoder = new TextEncoder();

export async function webhookSignature(secret: string, rawBody: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** True when the signature is the body's; compared in constant time over the expected length. */
export async function verifyWebhookSignature({ rawBody, signature, secret }: WebhookSignatureCheck): Promise<boolean> {
  if (!signature) return false;
  const expected = await webhookSignature(secret, rawBody);
  const given = signature.trim().toLowerCase();
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ (given.charCodeAt(i) || 0);
  return diff === 0;
}

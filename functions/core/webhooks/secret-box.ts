import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config.js";

/**
 * Webhook secrets at rest (issue 25): each is sealed in an envelope before it reaches the table — a
 * fresh data key per secret encrypts it (AES-256-GCM, the trigger's id as associated data, so a sealed
 * secret copied onto another trigger does not open), and the data key is itself encrypted under the
 * instance's webhook key. The webhook key comes from Secrets Manager in AWS (WEBHOOK_KEY_SECRET_ARN,
 * read once per process on first use) or from a local key file (WEBHOOK_KEY_FILE, made with 32 random
 * bytes on first use, mode 0600). Whatever the source holds is stretched to the AES key with HKDF.
 *
 * Sealed form: `wsk1.<key id>.<iv|tag|wrapped data key>.<iv|tag|ciphertext>` (base64url parts; the key
 * id names which webhook key sealed it). A value without the prefix is a secret stored before
 * encryption: it still opens as itself, and `isSealed` tells callers to seal it (see decisions.md).
 */
export const SEALED_PREFIX = "wsk1.";

export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX);

interface WebhookKey {
  id: string;
  key: Buffer;
}

const HKDF_INFO = "incumbent webhook secrets v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(material: Buffer): WebhookKey {
  const key = Buffer.from(hkdfSync("sha256", material, Buffer.alloc(0), HKDF_INFO, 32));
  return { id: createHash("sha256").update(key).digest("hex").slice(0, 8), key };
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

function decrypt(key: Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** Reads (or makes, once) the local key file. Two processes starting together agree: the second reads the first's. */
export function localKeyMaterial(file: string): Buffer {
  try {
    return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
}

export class WebhookSecretBox {
  private key: Promise<WebhookKey> | null = null;

  constructor(private readonly source: () => Promise<Buffer>) {}

  /**
   * The local key file, unless WEBHOOK_KEY_SECRET_ARN names a Secrets Manager secret: then the key comes
   * from `secretsManager` — given only by the two Lambdas that seal and open secrets (the API, the
   * webhook function; secret-key-aws.ts), so that no other bundle reaches GetSecretValue or needs the
   * right (test/infra/rights.test.ts). A process without it that tries to seal or open fails loudly.
   */
  static fromConfig(config: Pick<Config, "webhookKeySecretArn" | "webhookKeyFile">, secretsManager?: (secretArn: string) => Promise<Buffer>): WebhookSecretBox {
    const arn = config.webhookKeySecretArn;
    if (!arn) return new WebhookSecretBox(async () => localKeyMaterial(config.webhookKeyFile));
    return new WebhookSecretBox(async () => {
      if (!secretsManager) throw new Error("this process was not given the webhook key (only the API and the webhook function seal or open webhook secrets)");
      return secretsManager(arn);
    });
  }

  private webhookKey(): Promise<WebhookKey> {
    this.key ??= this.source()
      .then(deriveKey)
      .catch((error: unknown) => {
        this.key = null; // read again on the next use
        throw error;
      });
    return this.key;
  }

  /** Seals `secret` for trigger `triggerId`. */
  async seal(secret: string, triggerId: string): Promise<string> {
    const { id, key } = await this.webhookKey();
    const dataKey = randomBytes(32);
    return `${SEALED_PREFIX}${id}.${encrypt(key, dataKey, `${triggerId}#key`)}.${encrypt(dataKey, Buffer.from(secret, "utf8"), triggerId)}`;
  }

  /** The secret a stored value holds: opened when sealed, itself when stored before sealing. Throws when it does not open. */
  async open(stored: string, triggerId: string): Promise<string> {
    if (!isSealed(stored)) return stored;
    const [keyId, wrapped, body] = stored.slice(SEALED_PREFIX.length).split(".");
    const { id, key } = await this.webhookKey();
    if (keyId !== id) throw new Error(`the webhook secret was sealed under webhook key ${keyId}; this instance has ${id}`);
    const dataKey = decrypt(key, wrapped!, `${triggerId}#key`);
    return decrypt(dataKey, body!, triggerId).toString("utf8");
  }
}

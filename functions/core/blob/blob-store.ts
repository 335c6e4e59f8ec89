import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.js";
import type { BlobFamily } from "./keys.js";

export type { BlobFamily } from "./keys.js";

/**
 * Large payloads (problems over the inline threshold, solution vectors) live outside DynamoDB's
 * 400 KB items: in S3 in AWS, in a folder locally. Items keep the key (keys: see blob/keys.ts).
 */
export interface BlobStore {
  /** A string, or UTF-8 bytes (a payload serialized off the event loop). */
  put(key: string, body: string | Uint8Array): Promise<void>;
  get(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_\-/.]+$/;

function checkKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes("..")) throw new Error(`blob key not allowed: ${key}`);
}

export class FolderBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  async put(key: string, body: string | Uint8Array): Promise<void> {
    checkKey(key);
    const file = path.join(this.root, key);
    await mkdir(path.dirname(file), { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, body);
    const { rename } = await import("node:fs/promises");
    await rename(tmp, file);
  }

  async get(key: string): Promise<string | null> {
    checkKey(key);
    try {
      return await readFile(path.join(this.root, key), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await rm(path.join(this.root, key), { force: true });
  }
}

export class S3BlobStore implements BlobStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: string | Uint8Array): Promise<void> {
    checkKey(key);
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: "application/json" }));
  }

  async get(key: string): Promise<string | null> {
    checkKey(key);
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await out.Body?.transformToString("utf8")) ?? null;
    } catch (error) {
      if ((error as { name?: string }).name === "NoSuchKey") return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

export function createBlobStore(
  config: Pick<Config, "blobBucket" | "blobDir" | "region" | "awsEndpointUrl">,
  instrument: <C extends object>(client: C) => C = (client) => client,
): BlobStore {
  if (config.blobBucket) {
    return new S3BlobStore(
      instrument(new S3Client({ region: config.region, ...(config.awsEndpointUrl ? { endpoint: config.awsEndpointUrl, forcePathStyle: true } : {}) })),
      config.blobBucket,
    );
  }
  return new FolderBlobStore(path.resolve(config.blobDir));
}

/**
 * A JSON value kept inline (as a string attribute) when small, in the blob store when large.
 * The item stores `{ inline }` or `{ blob }`.
 */
export type PayloadRef = { inline: string } | { blob: string };

export async function storePayload(blobs: BlobStore, key: string, { value, inlineMaxBytes }: { value: unknown; inlineMaxBytes: number }): Promise<PayloadRef> {
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= inlineMaxBytes) return { inline: json };
  await blobs.put(key, json);
  return { blob: key };
}

/** The same for a value already written as JSON bytes; only a payload small enough to go inline is decoded. */
export async function storePayloadBytes(
  blobs: BlobStore,
  key: string,
  { json, inlineMaxBytes }: { json: Uint8Array; inlineMaxBytes: number },
): Promise<PayloadRef> {
  if (json.byteLength <= inlineMaxBytes) return { inline: new TextDecoder().decode(json) };
  await blobs.put(key, json);
  return { blob: key };
}

/**
 * A key read back from an item (a result's, a version's, a delivery body's) is deleted only under the
 * family (blob/keys.ts) its caller names: a damaged item cannot make a process delete another family's
 * blobs, and the deploy's rights can name each bundle's families (the rights test reads this prefix argument).
 */
export async function deleteStoredBlob(blobs: BlobStore, prefix: BlobFamily, key: string): Promise<void> {
  if (!key.startsWith(prefix)) throw new Error(`blob key ${key} is not under ${prefix}`);
  await blobs.delete(key);
}

export async function loadPayload<T>(blobs: BlobStore, ref: PayloadRef): Promise<T> {
  return JSON.parse(await loadPayloadText(blobs, ref)) as T;
}

/** A payload's JSON text, unparsed (for a thread that parses it off the event loop). */
export async function loadPayloadText(blobs: BlobStore, ref: PayloadRef): Promise<string> {
  if ("inline" in ref) return ref.inline;
  const json = await blobs.get(ref.blob);
  if (json === null) throw new Error(`payload ${ref.blob} is missing from the blob store`);
  return json;
}

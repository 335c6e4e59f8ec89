import { type ModelNames, storedModelNames } from "../jmodel/names.js";
import { type BlobStore, type PayloadRef, storePayload, storePayloadBytes } from "./blob-store.js";

/**
 * Model names ride inline in the execution's item up to this size (the item also holds the problem
 * inline up to INLINE_PAYLOAD_MAX_BYTES, and an item stops at 400 KB); larger maps go to the blob store.
 */
const MODEL_NAMES_INLINE_MAX_BYTES = 32_000;

/**
 * Keeps a JModel model's generated names (an execution's, a comparison's): inline in the item while
 * small, else a blob at `key` (blob/keys.ts). `names` may be the stored form's JSON bytes already (a
 * compile in the model thread).
 */
export function storeModelNames(
  blobs: BlobStore,
  key: string,
  { names, inlinePayloadMaxBytes }: { names: ModelNames | Uint8Array; inlinePayloadMaxBytes: number },
): Promise<PayloadRef> {
  const inlineMax = Math.min(inlinePayloadMaxBytes, MODEL_NAMES_INLINE_MAX_BYTES);
  if (names instanceof Uint8Array) return storePayloadBytes(blobs, key, { json: names, inlineMaxBytes: inlineMax });
  return storePayload(blobs, key, { value: storedModelNames(names), inlineMaxBytes: inlineMax });
}

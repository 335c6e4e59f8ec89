import { createHash, randomBytes } from "node:crypto";

/**
 * Identifiers are `<prefix>_<time><random>`: 10 Crockford base32 characters of milliseconds, then 16 of
 * randomness. String order is creation order, so "newest first" is a reverse key scan. Within one
 * millisecond the random part is incremented, keeping ids from one process strictly increasing.
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_LEN = 10;
const RANDOM_LEN = 16;

export type IdPrefix =
  | "org"
  | "usr"
  | "ws"
  | "key"
  | "trg"
  | "run"
  | "trun"
  | "cmp"
  | "cmb"
  | "prj"
  | "dst"
  | "doc"
  | "ver"
  | "ntf"
  | "exe"
  | "rst"
  | "dlv"
  | "req";

let lastTime = -1;
let lastRandom = 0n;

function encode(value: bigint, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export function timeSortablePart(ms: number): string {
  const time = Math.max(0, Math.floor(ms));
  let random: bigint;
  if (time === lastTime) {
    random = lastRandom + 1n;
  } else {
    random = BigInt(`0x${randomBytes(10).toString("hex")}`);
  }
  lastTime = time;
  lastRandom = random;
  return encode(BigInt(time), TIME_LEN) + encode(random & ((1n << 80n) - 1n), RANDOM_LEN);
}

export function newId(prefix: IdPrefix, ms: number = Date.now()): string {
  return `${prefix}_${timeSortablePart(ms)}`;
}

/**
 * An id for something that must be made once per `key` (a schedule's firing): the time part from `ms`,
 * the rest from a hash of `key`, so every attempt to make it names the same item.
 */
export function derivedId(prefix: IdPrefix, ms: number, key: string): string {
  const digest = BigInt(`0x${createHash("sha256").update(key, "utf8").digest("hex").slice(0, 20)}`);
  return `${prefix}_${encode(BigInt(Math.max(0, Math.floor(ms))), TIME_LEN)}${encode(digest, RANDOM_LEN)}`;
}

/** Milliseconds encoded in an id made by `newId` (for tests and diagnostics). */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + TIME_LEN);
  let value = 0;
  for (const ch of body) value = value * 32 + ALPHABET.indexOf(ch);
  return value;
}

const ID_PATTERN = /^[a-z]{2,4}_[0-9a-hjkmnp-tv-z]{26}$/;
export const looksLikeId = (value: string, prefix?: IdPrefix): boolean => ID_PATTERN.test(value) && (prefix === undefined || value.startsWith(`${prefix}_`));

/**
 * No record's id is longer than this (generated ids are about 30 characters, marketplace slugs short);
 * a longer one names nothing, and DynamoDB would refuse it as a key (past 1,024 bytes) with an error.
 */
export const MAX_ID_LENGTH = 200;

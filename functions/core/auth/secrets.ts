import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A random secret with a readable kind prefix, e.g. `inc_key_…`; 32 base62 characters ≈ 190 bits. */
export function generateSecret(kind: "key" | "trg" | "rst" | "whs" | "op" | "sgn" | "inv"): string {
  const bytes = randomBytes(32);
  let body = "";
  for (const b of bytes) body += BASE62[b % 62];
  return `inc_${kind}_${body}`;
}

/** The visible prefix of a secret kept for listing (never enough to use it). */
export const secretPrefix = (secret: string): string => secret.slice(0, 12);

export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex");

/** Constant-time equality of two strings of any length (length leaks only through the hash). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

// scrypt parameters: N=2^15, r=8, p=1 (~32 MiB, ~50 ms), the interactive-login recommendation.
const N = 32768;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, salt, expected] = parts as [string, string, string, string, string, string];
  const want = Buffer.from(expected, "base64url");
  const got = await scrypt(password, Buffer.from(salt, "base64url"), want.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A fixed hash to verify against when the e-mail is unknown, so timing does not reveal accounts. */
let dummyHash: Promise<string> | null = null;
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword("not-a-real-password"));

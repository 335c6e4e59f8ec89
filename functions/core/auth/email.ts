import { z } from "zod";

/**
 * One e-mail rule for every door an address comes in by: sign-up, adding a user, the local stack's
 * bootstrap, sign-in and password reset. Deliberately plain (something@something.something, no spaces,
 * at most 254 characters): what an address may look like is the mail system's business, and a rule
 * stricter at one door than another locks people out (an owner seeded as `a@b.c` must be able to sign in).
 *
 * The shape is checked by one pass over the characters, never by a pattern: the pattern it replaces,
 * `^[^\s@]+@[^\s@]+\.[^\s@]+$`, backtracks quadratically (`a@` + 60,000 dots took ~9 s). The length is
 * checked first and stops validation, so an address past it is never scanned.
 */
export const EMAIL_MAX_LENGTH = 254;

/**
 * The form an address is compared and claimed in: NFKC, then case-folded (upper- then lower-casing
 * folds what lower-casing alone misses: ß and ẞ to ss, final sigma to sigma), then NFKC again. So the
 * Kelvin sign (U+212A) or fullwidth letters cannot claim an address that is another's in plain letters.
 */
export const normalizeEmail = (email: string): string => email.normalize("NFKC").trim().toUpperCase().toLowerCase().normalize("NFKC");

/** JavaScript's `\s`: what the old pattern refused inside an address. */
function isWhitespace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * `something@something.something` with no whitespace and one `@`: the local part is not empty, and the
 * domain has a dot with at least one character before and after it. Linear in the length.
 */
export function hasEmailShape(value: string): boolean {
  let at = -1;
  let dotInDomain = false;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    if (isWhitespace(code)) return false;
    if (code === 0x40) {
      if (at >= 0 || i === 0) return false;
      at = i;
    } else if (code === 0x2e && at >= 0 && i > at + 1 && i < n - 1) dotInDomain = true;
  }
  return at >= 0 && dotInDomain;
}

export const isEmailAddress = (value: string): boolean => value.length <= EMAIL_MAX_LENGTH && hasEmailShape(normalizeEmail(value));

/**
 * The document shows the shape as the pattern it is equivalent to (for clients and generators); the
 * service never runs that pattern.
 */
const DOCUMENTED_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";

export const EmailSchema = z
  .string()
  .trim()
  .max(EMAIL_MAX_LENGTH, { abort: true })
  .refine(hasEmailShape, "must be an e-mail address (name@domain.tld)")
  .meta({ pattern: DOCUMENTED_PATTERN })
  .describe("an e-mail address; compared case-insensitively");

import { z } from "zod";

/**
 * One e-mail rule for every door an address comes in by: sign-up, adding a user, the local stack's
 * bootstrap, sign-in and password reset. Deliberately plain (something@something.something, no spaces,
 * at most 254 characters): what an address may look like is the mail system's business, and a rule
 * stricter at one door than another locks people out (an owner seeded as `a@b.c` must be able to sign in).
 */
export const EMAIL_MAX_LENGTH = 254;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The form an address is compared and claimed in: NFKC, then case-folded (upper- then lower-casing
 * folds what lower-casing alone misses: ß and ẞ to ss, final sigma to sigma), then NFKC again. So the
 * Kelvin sign (U+212A) or fullwidth letters cannot claim an address that is another's in plain letters.
 */
export const normalizeEmail = (email: string): string => email.normalize("NFKC").trim().toUpperCase().toLowerCase().normalize("NFKC");

export const isEmailAddress = (value: string): boolean => value.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(normalizeEmail(value));

export const EmailSchema = z
  .string()
  .trim()
  .max(EMAIL_MAX_LENGTH)
  .regex(EMAIL_PATTERN, "must be an e-mail address (name@domain.tld)")
  .describe("an e-mail address; compared case-insensitively");

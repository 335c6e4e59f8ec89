import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMAIL_MAX_LENGTH, EmailSchema, hasEmailShape, isEmailAddress } from "../../../../../functions/core/auth/email.js";

/** The pattern the rule replaced: the same language, but quadratic on `a@` + dots. Safe on the short strings here. */
const OLD_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

describe("the e-mail shape", () => {
  it("accepts exactly what the old pattern accepted (generated strings over the characters that matter)", () => {
    const char = fc.constantFrom("a", "B", "1", "@", ".", " ", "\t", "\u00a0", "\u2028", "\ufeff", "-", "+", "é");
    fc.assert(
      fc.property(fc.array(char, { maxLength: 12 }), (chars) => {
        const value = chars.join("");
        expect(hasEmailShape(value)).toBe(OLD_PATTERN.test(value));
      }),
      { numRuns: 5_000 },
    );
  });

  it("knows the plain cases", () => {
    for (const ok of ["a@b.c", "owner@example.test", "x.y+z@sub.domain.org", "a@..x", "a@b.c."]) expect(hasEmailShape(ok)).toBe(true);
    for (const bad of ["", "a", "@b.c", "a@b", "a@.b", "a@b.", "a@b@c.d", "a b@c.d", "a@b.c\n"]) expect(hasEmailShape(bad)).toBe(false);
  });

  it("stops at the length check: an address past 254 characters gets the length issue alone (the shape is never checked)", () => {
    const attack = `a@${".".repeat(60_000)}@`;
    const result = EmailSchema.safeParse(attack);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.code)).toEqual(["too_big"]);
    expect(isEmailAddress(attack)).toBe(false);
    // At the limit the shape is checked as usual.
    const longest = `${"a".repeat(EMAIL_MAX_LENGTH - 6)}@b.com`;
    expect(EmailSchema.safeParse(longest).success).toBe(true);
    expect(EmailSchema.safeParse(`${longest}x`).error!.issues.map((i) => i.code)).toEqual(["too_big"]);
  });
});

import type { ValidationIssue } from "../errors.js";

/**
 * DynamoDB stores numbers of magnitude 1e-130 to under 1e126 (38 significant digits); JSON admits any
 * double. A request whose numbers the table cannot hold is refused up front (422), rather than failing
 * when a record is written.
 */
export const MAX_STORABLE_MAGNITUDE = 1e126;
export const MIN_STORABLE_MAGNITUDE = 1e-130;

export const isStorableNumber = (n: number): boolean =>
  Number.isFinite(n) && (n === 0 || (Math.abs(n) < MAX_STORABLE_MAGNITUDE && Math.abs(n) >= MIN_STORABLE_MAGNITUDE));

/** Where in `value` numbers the table cannot hold sit (the first `max`), as validation issues. */
export function unstorableNumbers(value: unknown, loc: (string | number)[], max = 3): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const walk = (v: unknown, at: (string | number)[]): void => {
    if (issues.length >= max) return;
    if (typeof v === "number") {
      if (!isStorableNumber(v)) {
        issues.push({ loc: at, msg: `must be 0 or of magnitude between ${MIN_STORABLE_MAGNITUDE} and ${MAX_STORABLE_MAGNITUDE}`, type: "number_out_of_range" });
      }
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, [...at, i]);
    } else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(value, loc);
  return issues;
}

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

/**
 * Where in `value` numbers the table cannot hold sit (the first `max`), as validation issues, in
 * document order. An explicit stack, not recursion: a value nested 20,000 arrays deep overflowed the
 * call stack here (a 500); bodies are now refused past 32 levels before they are parsed, and this walk
 * holds whatever it is given.
 */
export function unstorableNumbers(value: unknown, loc: (string | number)[], max = 3): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Each entry: a value and the index of its parent entry and its key there, so paths are built only for issues.
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [""];
  const pending: number[] = [0];
  const pathOf = (entry: number): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let e = entry; e > 0; e = parents[e]!) path.push(keys[e]!);
    return [...loc, ...path.reverse()];
  };
  while (pending.length > 0 && issues.length < max) {
    const entry = pending.pop()!;
    const v = values[entry];
    if (typeof v === "number") {
      if (!isStorableNumber(v)) {
        issues.push({
          loc: pathOf(entry),
          msg: `must be 0 or of magnitude between ${MIN_STORABLE_MAGNITUDE} and ${MAX_STORABLE_MAGNITUDE}`,
          type: "number_out_of_range",
        });
      }
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const children: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Pushed last to first, so they are visited first to last.
    for (let k = children.length - 1; k >= 0; k--) {
      values.push(children[k]![1]);
      parents.push(entry);
      keys.push(children[k]![0]);
      pending.push(values.length - 1);
    }
  }
  return issues;
}

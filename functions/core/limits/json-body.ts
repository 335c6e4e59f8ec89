/**
 * The cost bound of a JSON body, checked on its text before it is parsed: one pass, no recursion, no
 * allocation beyond a key that needs decoding. JSON.parse, zod and the walks after them (storable
 * numbers, the DynamoDB marshaller, JSON.stringify) are recursive or proportional to the value count,
 * so a body past these limits is refused before any of them runs:
 *
 *  - depth: DynamoDB stores maps and lists nested 32 levels deep at most, so no body deeper than that
 *    could be kept anyway; JSON.stringify and the marshaller overflow the stack on ~10,000 levels, and
 *    JSON.parse of a 4 MB `[[[[…` takes seconds;
 *  - values (every object, array, string, number, true/false/null, keys not counted): bounds the objects
 *    JSON.parse makes and everything that walks them. A 4 MB body (the default MAX_REQUEST_BODY_MB) holds
 *    at most ~2 million (`[0,0,0,…`); a problem of that size in the canonical shape holds ~450,000;
 *  - the key `__proto__`: JSON.parse makes it an own property, but every plain object it is copied into
 *    (zod's records, spreads, the marshaller's output on read) turns it into the prototype or drops it.
 *    It names nothing a request can mean, so it is refused wherever it appears.
 */
export interface JsonBodyLimits {
  maxDepth: number;
  maxValues: number;
}

/** DynamoDB's nesting limit is 32 levels; see above for the value count. */
export const JSON_BODY_LIMITS: JsonBodyLimits = { maxDepth: 32, maxValues: 1_000_000 };

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__"]);

export type JsonBodyProblem =
  | { kind: "too_deep"; limit: number; offset: number }
  | { kind: "too_many_values"; limit: number; offset: number }
  | { kind: "forbidden_key"; key: string; offset: number };

enum Ch {
  Quote = 34,
  Backslash = 92,
  Comma = 44,
  Colon = 58,
  OpenBracket = 91,
  CloseBracket = 93,
  OpenBrace = 123,
  CloseBrace = 125,
  Space = 32,
  Tab = 9,
  Newline = 10,
  Return = 13,
}

/**
 * The first limit `text` breaks, or null. It does not validate the JSON (JSON.parse does that after):
 * malformed text is scanned as far as it goes and answered null when it breaks no limit.
 */
export function jsonBodyProblem(text: string, limits: JsonBodyLimits = JSON_BODY_LIMITS): JsonBodyProblem | null {
  // inObject[d]: whether the container at depth d (1-based) is an object.
  const inObject = new Uint8Array(limits.maxDepth + 2);
  let depth = 0;
  let values = 0;
  let expectKey = false;
  let expectValue = true;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case Ch.Space:
      case Ch.Tab:
      case Ch.Newline:
      case Ch.Return:
        continue;
      case Ch.OpenBrace:
      case Ch.OpenBracket:
        if (depth >= limits.maxDepth) return { kind: "too_deep", limit: limits.maxDepth, offset: i };
        if (++values > limits.maxValues) return { kind: "too_many_values", limit: limits.maxValues, offset: i };
        depth++;
        inObject[depth] = c === Ch.OpenBrace ? 1 : 0;
        expectKey = c === Ch.OpenBrace;
        expectValue = c === Ch.OpenBracket;
        continue;
      case Ch.CloseBrace:
      case Ch.CloseBracket:
        if (depth > 0) depth--;
        expectKey = false;
        expectValue = false;
        continue;
      case Ch.Comma:
        expectKey = depth > 0 && inObject[depth] === 1;
        expectValue = !expectKey;
        continue;
      case Ch.Colon:
        expectKey = false;
        expectValue = true;
        continue;
      case Ch.Quote: {
        const start = i + 1;
        let escaped = false;
        i = start;
        while (i < n) {
          const s = text.charCodeAt(i);
          if (s === Ch.Quote) break;
          if (s === Ch.Backslash) {
            escaped = true;
            i++;
          }
          i++;
        }
        if (expectKey) {
          const key = escaped ? escapedKeyOf(text, start, Math.min(i, n)) : plainKeyOf(text, start, Math.min(i, n));
          if (key !== null && FORBIDDEN_KEYS.has(key)) return { kind: "forbidden_key", key, offset: start - 1 };
          expectKey = false;
        } else {
          if (++values > limits.maxValues) return { kind: "too_many_values", limit: limits.maxValues, offset: start - 1 };
          expectValue = false;
        }
        continue;
      }
      default:
        // The first character of a number, true, false or null (the rest of it is skipped as "other").
        if (expectValue) {
          if (++values > limits.maxValues) return { kind: "too_many_values", limit: limits.maxValues, offset: i };
          expectValue = false;
        }
    }
  }
  return null;
}

/** A key without escapes: its text, when short enough to be a forbidden key. */
function plainKeyOf(text: string, start: number, end: number): string | null {
  return end - start <= 64 ? text.slice(start, end) : null;
}

/** A key with escapes, decoded (`"\u005f_proto__"` is `__proto__`), when short enough to be a forbidden key. */
function escapedKeyOf(text: string, start: number, end: number): string | null {
  // Six characters per escape at most: a longer raw key cannot decode to any forbidden key.
  if (end - start > 6 * 16) return null;
  try {
    return JSON.parse(`"${text.slice(start, end)}"`) as string;
  } catch {
    return null;
  }
}

/** The problem in words, for the error a caller reads. */
export function describeJsonBodyProblem(problem: JsonBodyProblem): string {
  switch (problem.kind) {
    case "too_deep":
      return `the body nests objects and arrays more than ${problem.limit} levels deep (at character ${problem.offset})`;
    case "too_many_values":
      return `the body holds more than ${problem.limit} JSON values (at character ${problem.offset})`;
    case "forbidden_key":
      return `the key "${problem.key}" is not accepted anywhere in a body (at character ${problem.offset})`;
  }
}

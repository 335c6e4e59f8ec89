import fc from "fast-check";

/**
 * fast-check arbitraries from the JSON Schemas (2020-12) of the service's own OpenAPI document: values
 * a schema admits, and hostile values (wrong types, huge and non-finite numbers, deep nesting, long and
 * unicode strings). Whether a generated value is valid is never assumed here: the runner asks ajv, with
 * the same document as oracle, and expects a refusal for whatever the document refuses.
 */
export type JsonSchema = Record<string, any>;

/** JSON.parse reads 1e999 as Infinity; JSON.stringify cannot write it, so a marker is replaced after serializing. */
export const NON_FINITE = { positive: "__fuzz_pos_infinity__", negative: "__fuzz_neg_infinity__" } as const;

export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replaceAll(`"${NON_FINITE.positive}"`, "1e999").replaceAll(`"${NON_FINITE.negative}"`, "-1e999");
}

const MAX_DEPTH = 6;

const unicodeText = fc.string({ unit: "grapheme", maxLength: 40 });
const anyText = fc.oneof(
  fc.string({ maxLength: 20 }),
  unicodeText,
  fc.constantFrom("", " ", "\u0000", "\u202e", "𝕏", "../../../../etc/passwd", "%2e%2e%2f", "${jndi:x}", "<script>", "' OR 1=1 --", "NaN", "-0"),
);

const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), 5e-324, -0, 1e21, 0.1 + 0.2);
const nonFinite = fc.constantFrom(NON_FINITE.positive, NON_FINITE.negative);

/** Nested arrays and objects to `depth` levels, as a parser or a recursive walker meets them. */
const deepNesting = fc.integer({ min: 50, max: 400 }).chain((depth) =>
  fc.constantFrom("array", "object").map((kind) => {
    let v: unknown = 0;
    for (let i = 0; i < depth; i++) v = kind === "array" ? [v] : { a: v };
    return v;
  }),
);

const longString = fc.integer({ min: 1_000, max: 100_000 }).chain((n) => fc.constantFrom("x", "é", "𝕏", "\\").map((c) => c.repeat(n)));

/** Any JSON value, hostile leaning. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  fc.constantFrom(null, true, false, 0, -1, 1.5, "", [], {}),
  hugeNumber,
  nonFinite,
  anyText,
  longString,
  deepNesting,
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
  fc.dictionary(fc.oneof(anyText, fc.constantFrom("__proto__", "constructor", "prototype")), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const parts = String(s.$ref).replace(/^#\//, "").split("/");
    s = parts.reduce((node: any, p) => node?.[p.replace(/~1/g, "/").replace(/~0/g, "~")], root);
  }
  return s ?? {};
}

function stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === "date-time") return fc.date({ noInvalidDate: true, min: new Date("2000-01-01"), max: new Date("2100-01-01") }).map((d) => d.toISOString());
  if (s.pattern) {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Number.MAX_SAFE_INTEGER;
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
  }
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 24, minLength + 24));
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ unit: "grapheme", minLength, maxLength }));
}

function numberArbitrary(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-9) : undefined);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 1e-9) : undefined);
  if (integer) return fc.integer({ min: Math.ceil(min ?? -1e6), max: Math.floor(max ?? 1e6) });
  return fc.oneof(
    fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Math.ceil(min ?? -1000), max: Math.floor(max ?? 1000) }),
  );
}

function typed(type: string, s: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArbitrary(s);
    case "integer":
      return numberArbitrary(s, true);
    case "number":
      return numberArbitrary(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 4, minLength + (depth > 3 ? 1 : 4)));
      return fc.array(admittedValue(s.items ?? {}, root, depth + 1), { minLength, maxLength });
    }
    case "object": {
      const props: Record<string, JsonSchema> = s.properties ?? {};
      const required = new Set<string>(s.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = admittedValue(v, root, depth + 1);
      const known = fc.record(record, { requiredKeys: [...required].filter((k) => k in props) });
      if (s.additionalProperties === false || Object.keys(props).length > 0) return known;
      // A free-form map (data, override_data).
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), depth > 3 ? fc.jsonValue({ maxDepth: 1 }) : fc.jsonValue({ maxDepth: 3 }), {
        maxKeys: 4,
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values the schema is meant to admit (ajv has the last word; patterns and formats are honoured). */
export function admittedValue(schema: JsonSchema, root: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  if (depth > MAX_DEPTH) return s.type === "array" ? fc.constant([]) : fc.constant(s.default ?? null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives: JsonSchema[] | undefined = s.oneOf ?? s.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => admittedValue(a, root, depth + 1)));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((t: string) => typed(t, s, root, depth)));
  if (s.type) return typed(s.type, s, root, depth);
  if (s.properties) return typed("object", s, root, depth);
  return fc.jsonValue({ maxDepth: 2 });
}

/**
 * A value built like a valid one, then broken in one place: a property replaced by a hostile value,
 * a required one dropped, an array past its bounds, a string past its length, a number past its range.
 */
export function brokenValueOf(schema: JsonSchema, root: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  const options: fc.Arbitrary<unknown>[] = [hostileValue];
  const props: Record<string, JsonSchema> = s.properties ?? {};
  const names = Object.keys(props);
  if (names.length > 0 && depth < MAX_DEPTH) {
    const base = admittedValue(s, root, depth) as fc.Arbitrary<Record<string, unknown>>;
    options.push(
      fc.tuple(base, fc.constantFrom(...names)).chain(([obj, name]) => brokenValueOf(props[name]!, root, depth + 1).map((bad) => ({ ...obj, [name]: bad }))),
    );
    if ((s.required ?? []).length > 0) {
      options.push(
        fc.tuple(base, fc.constantFrom(...(s.required as string[]))).map(([obj, name]) => {
          const copy = { ...obj };
          delete copy[name];
          return copy;
        }),
      );
    }
  }
  if (s.type === "array" && depth < MAX_DEPTH) {
    options.push(fc.array(brokenValueOf(s.items ?? {}, root, depth + 1), { minLength: 1, maxLength: 3 }));
    if (s.maxItems !== undefined) options.push(fc.constant(Array.from({ length: s.maxItems + 1 }, () => null)));
  }
  if (s.type === "string" && s.maxLength !== undefined) options.push(fc.constant("y".repeat(s.maxLength + 1)));
  if (s.type === "number" || s.type === "integer") {
    options.push(nonFinite, hugeNumber);
    if (s.maximum !== undefined) options.push(fc.constant(s.maximum + 1));
    if (s.minimum !== undefined) options.push(fc.constant(s.minimum - 1));
    if (s.type === "integer") options.push(fc.constant(1.5));
  }
  if (Array.isArray(s.enum)) options.push(anyText);
  return fc.oneof(...options);
}

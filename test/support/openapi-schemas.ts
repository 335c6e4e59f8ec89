/**
 * Reading the OpenAPI document's schemas in tests: the shared ones are `$ref`s into
 * `components.schemas` (functions/api/openapi/schema-components.ts), so a test that looks for a field
 * or a description under an operation follows them first.
 */
type Json = any;

/** The node a local `$ref` (`#/components/…`) points at, followed until it is no reference. */
export function resolveRef(doc: Json, node: Json): Json {
  let out = node;
  for (let i = 0; typeof out?.$ref === "string" && i < 20; i++) {
    out = out.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((p: string) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((at: Json, key: string) => at?.[key], doc);
  }
  return out;
}

/**
 * A copy of `node` with every `$ref` replaced by what it names (its siblings, such as a description
 * at the use, kept). A schema met again on its own path is left a `$ref` (the document has no cycles
 * today; this keeps a future one from recursing forever).
 */
export function inlineRefs(doc: Json, node: Json, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(doc, item, seen));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string" && !seen.includes(node.$ref)) {
    const { $ref, ...siblings } = node;
    return { ...inlineRefs(doc, resolveRef(doc, { $ref }), [...seen, $ref]), ...inlineRefs(doc, siblings, seen) };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineRefs(doc, v, seen)]));
}

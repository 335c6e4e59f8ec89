import { ERROR_NAMES, ERROR_REGISTRY, type ErrorName } from "../../core/errors.js";

/**
 * The error responses of the OpenAPI document, each written once under `components.responses` and
 * named by what it carries; operations point at them with `$ref` (issue 27: written out on every
 * operation they were about half the document). An operation answers one response per status, so a
 * component is one (status, set of error names, headers) combination: `NotFound`, or
 * `ForbiddenOrInsufficientCredits` where a status may carry either name, its body `oneOf` their schemas.
 * The set is kept in the registry's order, so the same names make the same component whichever route
 * declares them. A rate-exempt route (health) sends no rate-limit headers, so its responses are their
 * own components, suffixed `RateExempt`.
 */
type Json = Record<string, unknown>;

/** The component name of an error's body: `not_found` → `NotFound`. */
export const errorComponent = (name: ErrorName): string =>
  name
    .split("_")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

const schemaRef = (component: string) => ({ $ref: `#/components/schemas/${component}` });
/** References to response headers declared once in `components.headers`. */
export const headerRefs = (names: readonly string[]): Json => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

const registryOrder = (a: ErrorName, b: ErrorName) => ERROR_NAMES.indexOf(a) - ERROR_NAMES.indexOf(b);

export class ErrorResponses {
  private readonly components = new Map<string, Json>();

  /** The headers every response carries, on rate-limited routes and on rate-exempt ones; a 429 adds Retry-After. */
  constructor(private readonly headers: { rated: readonly string[]; rateExempt: readonly string[] }) {}

  /** The operation's error responses by status, each a `$ref` to its component (made on first use). */
  forOperation(names: ErrorName[], { rateExempt }: { rateExempt: boolean }): Json {
    const headers = rateExempt ? this.headers.rateExempt : this.headers.rated;
    const byStatus = new Map<number, ErrorName[]>();
    for (const name of names) {
      const status = ERROR_REGISTRY[name].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
    }
    const out: Json = {};
    for (const [status, group] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
      const set = [...new Set(group)].sort(registryOrder);
      const component = set.map(errorComponent).join("Or") + (rateExempt ? "RateExempt" : "");
      if (!this.components.has(component)) {
        const bodies = set.map((n) => schemaRef(errorComponent(n)));
        this.components.set(component, {
          description: set.map((n) => `${n}: ${ERROR_REGISTRY[n].description}`).join(" "),
          headers: headerRefs(status === 429 ? [...headers, "Retry-After"] : headers),
          content: { "application/json": { schema: bodies.length === 1 ? bodies[0] : { oneOf: bodies } } },
        });
      }
      out[String(status)] = { $ref: `#/components/responses/${component}` };
    }
    return out;
  }

  /** Every component made so far, by name, sorted (for `components.responses`). */
  all(): Json {
    return Object.fromEntries([...this.components.entries()].sort((a, b) => a[0].localeCompare(b[0])));
  }
}

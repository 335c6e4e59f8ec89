import { z } from "zod";
import { SCHEMA_NAMES } from "../../core/schema-names.js";

/**
 * The document's named schemas: a zod schema registered in SCHEMA_NAMES with an id (`ExecutionView`)
 * is written once under `components.schemas` and referred to with `$ref` wherever a request or
 * response carries it (zod's converter extracts each schema whose metadata has an id into `$defs`; they
 * are lifted from there).
 *
 * A schema renders differently as a request (io `input`: defaults make fields optional, objects are
 * open) and as a response (io `output`: closed objects, defaulted fields required), so the two
 * variants of one id are kept apart: a response's is the id itself, a request's is the id too when
 * no response carries that id or both render the same and it refers to no other named schema, else
 * the id suffixed `Input` (`Problem`, the preview's, and `ProblemInput`, a solve body's). Which name a
 * request's reference takes is known only once every operation is converted, so those references are
 * set by `finish()`.
 */
type Json = Record<string, unknown>;
type Io = "input" | "output";

/**
 * The metadata zod's converter reads (it asks one registry, and only its `get`): the global registry's
 * (descriptions, patterns), with the name from SCHEMA_NAMES added.
 */
class NamedMetadata extends z.core.$ZodRegistry<Record<string, unknown>> {
  override get(schema: z.core.$ZodType): Record<string, unknown> | undefined {
    const meta = z.globalRegistry.get(schema);
    const name = SCHEMA_NAMES.get(schema);
    return name ? { ...meta, ...name } : meta;
  }
}
const METADATA = new NamedMetadata();

const DEFS = "#/$defs/";
const COMPONENTS = "#/components/schemas/";

export class SchemaComponents {
  private readonly defs: Record<Io, Map<string, { json: Json; text: string; links: boolean }>> = { input: new Map(), output: new Map() };
  /** Request-side `$ref` nodes, by the id they name, to point at their component in `finish()`. */
  private readonly inputRefs = new Map<string, Json[]>();
  private finished: Record<string, Json> | null = null;

  /** `s` as JSON Schema 2020-12, its named schemas replaced by `$ref`s to `components.schemas`. */
  convert(s: z.ZodType, io: Io): Json {
    if (this.finished) throw new Error("SchemaComponents: convert() after finish()");
    const out = z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12", metadata: METADATA }) as Json;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    for (const [id, def] of Object.entries(defs)) this.keep(id, def, io, this.relink(def, io));
    this.relink(out, io);
    return out;
  }

  /**
   * Every named schema, by component name, sorted; after this the request-side references point at
   * their final names. `reserved` are names the document already gives other schemas (the error
   * bodies): a named schema may not take one.
   */
  finish(reserved: Iterable<string> = []): Record<string, Json> {
    if (this.finished) return this.finished;
    const out: Record<string, Json> = {};
    for (const [id, { json }] of this.defs.output) out[id] = json;
    for (const [id, def] of this.defs.input) {
      const name = this.inputName(id, def);
      const json = def.json;
      out[name] ??= json;
      for (const node of this.inputRefs.get(id) ?? []) node.$ref = COMPONENTS + name;
    }
    for (const name of reserved) {
      if (name in out) throw new Error(`OpenAPI: the schema id ${name} is also an error body's component name`);
    }
    this.finished = Object.fromEntries(Object.entries(out).sort((a, b) => a[0].localeCompare(b[0])));
    return this.finished;
  }

  /**
   * A request variant that renders as the response's and refers to no other named schema is the same
   * schema; one that refers to others is kept apart (those may themselves be named apart).
   */
  private inputName(id: string, input: { text: string; links: boolean }): string {
    const output = this.defs.output.get(id);
    if (!output || (output.text === input.text && !input.links)) return id;
    const suffixed = `${id}Input`;
    if (this.defs.output.has(suffixed)) throw new Error(`OpenAPI: ${id}'s request variant and the schema ${suffixed} would share a name`);
    return suffixed;
  }

  /** Keeps a definition; one id rendering two ways in one io is two schemas declared with one id. */
  private keep(id: string, json: Json, io: Io, links: boolean): void {
    const text = JSON.stringify(json);
    const seen = this.defs[io].get(id);
    if (seen && seen.text !== text) throw new Error(`OpenAPI: two different ${io} schemas carry the id ${id}`);
    if (!seen) this.defs[io].set(id, { json, text, links });
  }

  /**
   * Points every `#/$defs/…` reference under `node` at `components.schemas` (a request's: again in
   * `finish()`); whether there was one.
   */
  private relink(node: unknown, io: Io): boolean {
    if (Array.isArray(node)) return node.map((item) => this.relink(item, io)).some(Boolean);
    if (!node || typeof node !== "object") return false;
    const obj = node as Json;
    let linked = false;
    if (typeof obj.$ref === "string" && obj.$ref.startsWith(DEFS)) {
      const id = obj.$ref.slice(DEFS.length);
      obj.$ref = COMPONENTS + id;
      if (io === "input") {
        const refs = this.inputRefs.get(id) ?? [];
        refs.push(obj);
        this.inputRefs.set(id, refs);
      }
      linked = true;
    }
    for (const value of Object.values(obj)) linked = this.relink(value, io) || linked;
    return linked;
  }
}

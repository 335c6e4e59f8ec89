import type { Indexing, ModelAst, ParamDecl, SetDecl } from "./ast.js";
import { dataError, START_OF_SOURCE } from "./errors.js";
import { describeDomainMiss, type Evaluator, type Frame } from "./evaluate.js";
import { canonicalAtom, formatIndex, invalidElementReason, SetValue, TupleMap, type Atom, type Tuple } from "./values.js";

/**
 * Binding a JSON dataset to a checked model. A dataset is one object keyed by set and parameter
 * names (keys starting with `$` are ignored, for `$schema` or `$comment`):
 *   - a set: an array of elements (strings or numbers), or of arrays for a set of tuples;
 *   - a scalar parameter: a number;
 *   - an indexed parameter: nested objects keyed by index (`{"seattle": {"chicago": 1.7}}`), or an
 *     array of rows, index components then value (`[["seattle", "chicago", 1.7]]`).
 * Every value is checked against the declaration, and the first problem is thrown with the position
 * of the declaration it concerns.
 */

/** The entries the model will read: the dataset with overrides applied, every name checked. */
export function mergeDataset(ast: ModelAst, data: unknown, overrides: Record<string, unknown> | undefined): Map<string, unknown> {
  const symbols = new Map<string, SetDecl | ParamDecl>();
  const others = new Map<string, string>();
  for (const decl of ast.declarations) {
    if (decl.kind === "set" || decl.kind === "param") symbols.set(decl.name, decl);
    else others.set(decl.name, decl.kind === "var" ? "a variable" : decl.kind === "objective" ? "the objective" : "a constraint");
  }
  const merged = new Map<string, unknown>();
  const take = (name: string, value: unknown, from: "dataset" | "override") => {
    const decl = symbols.get(name);
    if (decl === undefined) {
      const what = others.has(name)
        ? `\`${name}\` is ${others.get(name)}, and only sets and parameters take data`
        : "the model declares no set or parameter of that name";
      if (from === "override")
        throw dataError({ code: "unknown_override", at: START_OF_SOURCE, message: `unknown override \`${name}\`: ${what}`, symbol: name });
      throw dataError({ code: "unknown_data_key", at: START_OF_SOURCE, message: `the dataset gives \`${name}\`, but ${what}`, symbol: name });
    }
    if (decl.definition !== null) {
      throw dataError({
        code: "defined_in_model",
        at: decl.pos,
        message: `${decl.kind === "set" ? "set" : "parameter"} \`${name}\` is defined in the model with \`:=\` and cannot be given by ${from === "override" ? "an override" : "the dataset"} (declare it with \`default\` to allow that)`,
        symbol: name,
      });
    }
    merged.set(name, value);
  };

  if (data !== undefined && data !== null) {
    if (!isPlainObject(data)) {
      throw dataError({
        code: "wrong_type",
        at: START_OF_SOURCE,
        message: `the dataset must be a JSON object keyed by set and parameter names, found ${describeJson(data)}`,
      });
    }
    for (const [name, value] of Object.entries(data)) if (!name.startsWith("$")) take(name, value, "dataset");
  }
  for (const [name, value] of Object.entries(overrides ?? {})) take(name, value, "override");
  return merged;
}

// ------------------------------------------------------------ sets

export function bindSet(ev: Evaluator, decl: SetDecl, raw: unknown): void {
  const frame: Frame = new Array(decl.frameSize ?? 0);
  let value: SetValue;
  if (decl.definition !== null) value = ev.evalSet(decl.definition, frame);
  else if (raw !== undefined) value = readSet(decl, raw);
  else if (decl.defaultValue !== null) value = ev.evalSet(decl.defaultValue, frame);
  else throw dataError({ code: "missing_value", at: decl.pos, message: `missing set \`${decl.name}\`: the dataset does not give it`, symbol: decl.name });
  if (decl.within !== null) {
    for (const tuple of value.tuples) {
      if (ev.member(decl.within, tuple, frame) === null) {
        const shown = tuple.length === 1 ? `\`${tuple[0]}\`` : formatIndex(tuple);
        throw dataError({
          code: "not_in_set",
          at: decl.pos,
          message: `set \`${decl.name}\` has element ${shown} outside its \`within\` set: ${ev.whyNotIn(decl.within, tuple, frame)}`,
          symbol: decl.name,
        });
      }
    }
  }
  ev.sets.set(decl, value);
}

function readSet(decl: SetDecl, raw: unknown): SetValue {
  const dimension = decl.dimension ?? 1;
  const shape = dimension === 1 ? "elements (strings or numbers)" : `tuples of ${dimension} elements such as ${exampleTuple(dimension)}`;
  if (!Array.isArray(raw)) {
    throw dataError({
      code: "wrong_type",
      at: decl.pos,
      message: `set \`${decl.name}\` must be an array of ${shape}, found ${describeJson(raw)}`,
      symbol: decl.name,
    });
  }
  const set = new SetValue(dimension);
  raw.forEach((item: unknown, i) => {
    const what = `set \`${decl.name}\` element ${i + 1}`;
    let tuple: Atom[];
    if (dimension === 1) tuple = [readAtom(item, what, decl)];
    else {
      if (!Array.isArray(item) || item.length !== dimension) {
        throw dataError({
          code: "wrong_type",
          at: decl.pos,
          message: `${what} must be a tuple of ${dimension} elements such as ${exampleTuple(dimension)}, found ${describeJson(item)}`,
          symbol: decl.name,
        });
      }
      tuple = item.map((a: unknown) => readAtom(a, what, decl));
    }
    if (!set.add(tuple)) {
      throw dataError({
        code: "duplicate_element",
        at: decl.pos,
        message: `set \`${decl.name}\` lists ${dimension === 1 ? `\`${tuple[0]}\`` : formatIndex(tuple)} twice`,
        symbol: decl.name,
      });
    }
  });
  return set;
}

function readAtom(value: unknown, what: string, decl: SetDecl | ParamDecl): Atom {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string") {
    const reason = invalidElementReason(value);
    if (reason !== null)
      throw dataError({ code: "invalid_element", at: decl.pos, message: `${what}: "${value}" cannot be a set element: ${reason}`, symbol: decl.name });
    return canonicalAtom(value);
  }
  throw dataError({ code: "wrong_type", at: decl.pos, message: `${what} must be a string or a number, found ${describeJson(value)}`, symbol: decl.name });
}

// ------------------------------------------------------------ parameters

export function bindParam(ev: Evaluator, decl: ParamDecl, raw: unknown): void {
  const values = new TupleMap<number>(decl.arity ?? 0);
  const frame: Frame = new Array(decl.frameSize ?? 0);
  ev.params.set(decl, { decl, values, frame });
  const arity = decl.arity ?? 0;

  if (arity === 0) {
    let value: number;
    if (raw !== undefined) value = readNumber(raw, decl, []);
    else if (decl.definition !== null || decl.defaultValue !== null) value = ev.evalNum((decl.definition ?? decl.defaultValue)!, frame);
    else
      throw dataError({ code: "missing_value", at: decl.pos, message: `missing parameter \`${decl.name}\`: the dataset does not give it`, symbol: decl.name });
    ev.checkParamValue(decl, value, [], frame);
    values.set([], value);
    return;
  }

  const indexing = decl.indexing!;
  const store = (tuple: Tuple, value: unknown) => {
    const number = readNumber(value, decl, tuple);
    ev.checkParamValue(decl, number, tuple, frame);
    const before = values.size;
    values.set(tuple, number);
    if (values.size === before) {
      throw dataError({
        code: "duplicate_element",
        at: decl.pos,
        message: `parameter \`${decl.name}\` is given twice for index ${formatIndex(tuple)}`,
        symbol: decl.name,
      });
    }
  };
  const product = productSets(ev, indexing, frame);
  if (raw !== undefined) {
    if (product !== null && isPlainObject(raw)) bindNested(decl, { raw, factors: product, frame, store });
    else {
      for (const { tuple, value } of readParamEntries(decl, raw, arity)) {
        const miss = ev.matchDomain(indexing, tuple, frame);
        if (miss !== null)
          throw dataError({ code: "not_in_set", at: decl.pos, message: `parameter \`${decl.name}\`: ${describeDomainMiss(miss, tuple)}`, symbol: decl.name });
        store(tuple, value);
      }
    }
  }
  if (decl.definition !== null || decl.defaultValue !== null) return;
  // Every value read lies in the domain and none twice: as many values as members means complete.
  if (product !== null && values.size === product.reduce((n, p) => n * p.set.size, 1)) return;
  // No fallback: every index of the domain needs a value. Name the first one missing.
  ev.iterate(indexing, frame, (index) => {
    if (!values.has(index)) {
      const absent = raw === undefined ? ` (the dataset does not give \`${decl.name}\`)` : "";
      throw dataError({
        code: "missing_value",
        at: decl.pos,
        message: `missing parameter \`${decl.name}\` for index ${formatIndex(index)}${absent}`,
        symbol: decl.name,
      });
    }
  });
}

/** One factor of a plain product domain `{p in PLANTS, MARKETS}`: a named one-dimensional set. */
interface Factor {
  name: string;
  set: SetValue;
  /** Slot of the factor's dummy, or -1 for an anonymous entry. */
  slot: number;
}

/** The factors when the domain is a plain product of named one-dimensional sets (no condition). */
function productSets(ev: Evaluator, indexing: Indexing, frame: Frame): Factor[] | null {
  if (indexing.condition !== null) return null;
  const factors: Factor[] = [];
  for (const entry of indexing.entries) {
    if (entry.set.kind !== "name" || entry.dimension !== 1) return null;
    if (entry.dummies !== null && (entry.dummies.length !== 1 || entry.dummies[0]!.filter)) return null;
    factors.push({ name: entry.set.name, set: ev.evalSet(entry.set, frame), slot: entry.dummies?.[0]?.slot ?? -1 });
  }
  return factors;
}

/**
 * Nested objects over a product domain, read in one pass: a JSON key is a member exactly when the
 * set has an element with that key, so each key costs one hash look-up.
 */
function bindNested(
  decl: ParamDecl,
  { raw, factors, frame, store }: { raw: Record<string, unknown>; factors: Factor[]; frame: Frame; store: (tuple: Tuple, value: unknown) => void },
): void {
  const tuple: Atom[] = new Array(factors.length);
  const walk = (node: Record<string, unknown>, depth: number) => {
    const factor = factors[depth]!;
    for (const key of Object.keys(node)) {
      tuple.length = depth + 1;
      const member = factor.set.findAtom(canonicalAtom(key));
      if (member === undefined) {
        tuple[depth] = key;
        const miss = { reason: `\`${key}\` is not in set \`${factor.name}\``, notInSet: true };
        throw dataError({ code: "not_in_set", at: decl.pos, message: `parameter \`${decl.name}\`: ${describeDomainMiss(miss, tuple)}`, symbol: decl.name });
      }
      tuple[depth] = member[0]!;
      if (factor.slot >= 0) frame[factor.slot] = member[0]!;
      const value = node[key];
      if (depth + 1 === factors.length) store(tuple, value);
      else if (isPlainObject(value)) walk(value, depth + 1);
      else {
        throw dataError({
          code: "wrong_type",
          at: decl.pos,
          message: `parameter \`${decl.name}\` at ${formatIndex(tuple)} must be an object keyed by the next index (it has ${factors.length} index components), found ${describeJson(value)}`,
          symbol: decl.name,
        });
      }
    }
  };
  walk(raw, 0);
}

interface RawEntry {
  tuple: Atom[];
  value: unknown;
}

function readParamEntries(decl: ParamDecl, raw: unknown, arity: number): RawEntry[] {
  const entries: RawEntry[] = [];
  if (Array.isArray(raw)) {
    raw.forEach((row: unknown, i) => {
      if (!Array.isArray(row) || row.length !== arity + 1) {
        throw dataError({
          code: "wrong_type",
          at: decl.pos,
          message: `parameter \`${decl.name}\` row ${i + 1} must be [${exampleRow(arity)}] (${arity} index component(s), then the value), found ${describeJson(row)}`,
          symbol: decl.name,
        });
      }
      entries.push({ tuple: row.slice(0, arity).map((a: unknown) => readAtom(a, `parameter \`${decl.name}\` row ${i + 1}`, decl)), value: row[arity] });
    });
    return entries;
  }
  if (!isPlainObject(raw)) {
    throw dataError({
      code: "wrong_type",
      at: decl.pos,
      message: `parameter \`${decl.name}\` is indexed: give an object keyed by index, or an array of rows [${exampleRow(arity)}]; found ${describeJson(raw)}`,
      symbol: decl.name,
    });
  }
  const walk = (node: Record<string, unknown>, prefix: Atom[]) => {
    for (const [key, value] of Object.entries(node)) {
      const tuple = [...prefix, canonicalAtom(key)];
      if (tuple.length === arity) entries.push({ tuple, value });
      else if (isPlainObject(value)) walk(value, tuple);
      else {
        throw dataError({
          code: "wrong_type",
          at: decl.pos,
          message: `parameter \`${decl.name}\` at ${formatIndex(tuple)} must be an object keyed by the next index (it has ${arity} index components), found ${describeJson(value)}`,
          symbol: decl.name,
        });
      }
    }
  };
  walk(raw, []);
  return entries;
}

function readNumber(value: unknown, decl: ParamDecl, tuple: Tuple): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  const at = tuple.length > 0 ? ` at ${formatIndex(tuple)}` : "";
  throw dataError({
    code: "wrong_type",
    at: decl.pos,
    message: `parameter \`${decl.name}\`${at} must be a number, found ${describeJson(value)}`,
    symbol: decl.name,
  });
}

// ------------------------------------------------------------ helpers

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return value.length === 1 ? "an array of 1 item" : `an array of ${value.length} items`;
  if (typeof value === "string") return `string "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === "number") return Number.isFinite(value) ? `number ${value}` : `non-finite number ${value}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

function exampleTuple(dimension: number): string {
  return `[${Array.from({ length: dimension }, (_, i) => `"${String.fromCharCode(97 + i)}"`).join(", ")}]`;
}

function exampleRow(arity: number): string {
  return [...Array.from({ length: arity }, (_, i) => String.fromCharCode(105 + i)), "value"].join(", ");
}

/**
 * Set elements and set values. An element (an "atom") is a number or a string; a tuple is an array of
 * atoms. A string that is the canonical spelling of a finite number ("1", "2.5", "-3", not "007" or
 * "1.0") is that number: atoms are canonicalized where they enter (dataset, JSON keys, literals), so
 * `1` and `"1"` are one element. That makes JSON object keys (always strings) usable as indices of
 * numeric sets, keeps generated names such as `x[1,2]` unique, and lets every look-up be one probe.
 */

export type Atom = string | number;
export type Tuple = readonly Atom[];

/** How an element prints, in generated names and messages (numbers in their shortest form). */
export function atomKey(atom: Atom): string {
  return typeof atom === "number" ? String(atom) : atom;
}

/** The atom a string stands for: the number it spells canonically, else the string itself. */
export function canonicalAtom(text: string): Atom {
  const value = Number(text);
  return Number.isFinite(value) && String(value) === text ? value : text;
}

/**
 * Why a string cannot be a set element, or null when it can. Commas and brackets would make generated
 * names (`x[a,b]`) ambiguous; control characters have no place in names.
 */
export function invalidElementReason(text: string): string | null {
  if (text.length === 0) return "it is empty";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return "it contains a control character";
    const ch = text[i];
    if (ch === "," || ch === "[" || ch === "]") return `it contains \`${ch}\`, which would make generated names ambiguous`;
  }
  return null;
}

/** `[`berlin`]`, `[`seattle`,`new-york`]`: an index as messages show it. */
export function formatIndex(tuple: Tuple): string {
  return `[${tuple.map((a) => `\`${atomKey(a)}\``).join(",")}]`;
}

/** `x`, `x[1]`, `flow[a,b]`: the generated name of a variable or constraint. */
export function generatedName(base: string, tuple: Tuple): string {
  if (tuple.length === 0) return base;
  let name = `${base}[${atomKey(tuple[0]!)}`;
  for (let i = 1; i < tuple.length; i++) name += `,${atomKey(tuple[i]!)}`;
  return `${name}]`;
}

/**
 * Values by index tuple, as nested maps keyed by the (canonical) atoms themselves: a look-up is one
 * hash probe per component, on numbers or on strings whose hashes are cached, with no key to build.
 */
export class TupleMap<V> {
  /** Nested maps `arity` levels deep; for arity 0 the value is held in `scalar`. */
  readonly root = new Map<Atom, unknown>();
  scalar: V | undefined = undefined;
  size = 0;

  constructor(readonly arity: number) {}

  get(tuple: Tuple): V | undefined {
    if (tuple.length === 0) return this.scalar;
    let node: unknown = this.root;
    for (let i = 0; i < tuple.length && node !== undefined; i++) node = (node as Map<Atom, unknown>).get(tuple[i]!);
    return node as V | undefined;
  }

  has(tuple: Tuple): boolean {
    return this.get(tuple) !== undefined;
  }

  /** Stores a value under the tuple as given (callers pass the sets' own elements). */
  set(tuple: Tuple, value: V): void {
    if (tuple.length === 0) {
      if (this.scalar === undefined) this.size++;
      this.scalar = value;
      return;
    }
    let node = this.root;
    for (let i = 0; i < tuple.length - 1; i++) {
      let next = node.get(tuple[i]!) as Map<Atom, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(tuple[i]!, next);
      }
      node = next;
    }
    const last = tuple[tuple.length - 1]!;
    if (!node.has(last)) this.size++;
    node.set(last, value);
  }
}

/** A materialized set: its tuples in order, with constant-time membership and cached slices. */
export class SetValue {
  /** Position of each tuple in `tuples`, by the tuple's atoms. */
  private readonly positions: TupleMap<number>;
  readonly tuples: Tuple[] = [];
  /** Slices by the positions they fix (`"1"`, `"0,2"`), then by the fixed values. */
  private slices: Map<string, TupleMap<Tuple[]>> | null = null;

  /** An empty set; `dimension` 0 means "not yet known" (the empty literal `{}`). */
  constructor(readonly dimension: number) {
    this.positions = new TupleMap(dimension);
  }

  static of(dimension: number, tuples: Iterable<Tuple>): SetValue {
    const set = new SetValue(dimension);
    for (const t of tuples) set.add(t);
    return set;
  }

  get size(): number {
    return this.tuples.length;
  }

  /** Adds a tuple unless an equal one is already there; returns false for a duplicate. */
  add(tuple: Tuple): boolean {
    if (this.positions.get(tuple) !== undefined) return false;
    this.positions.set(tuple, this.tuples.length);
    this.tuples.push(tuple);
    return true;
  }

  has(tuple: Tuple): boolean {
    return this.positions.get(tuple) !== undefined;
  }

  /** The set's own copy of an equal tuple, if there is one. */
  find(tuple: Tuple): Tuple | undefined {
    const at = this.positions.get(tuple);
    return at === undefined ? undefined : this.tuples[at];
  }

  /** `find` for a one-dimensional set, without building a tuple. */
  findAtom(atom: Atom): Tuple | undefined {
    const at = (this.positions.root as Map<Atom, number>).get(atom);
    return at === undefined ? undefined : this.tuples[at];
  }

  /**
   * The tuples whose components at `fixed` positions equal `values`. Builds an index per combination
   * of fixed positions on first use, so `sum{(i,k) in LINKS}` with k bound costs O(matches), not O(|LINKS|).
   */
  slice(fixed: readonly number[], values: Tuple): readonly Tuple[] {
    const signature = fixed.join(",");
    this.slices ??= new Map();
    let index = this.slices.get(signature);
    if (index === undefined) {
      index = new TupleMap(fixed.length);
      for (const t of this.tuples) {
        const key = fixed.map((p) => t[p]!);
        const bucket = index.get(key);
        if (bucket === undefined) index.set(key, [t]);
        else bucket.push(t);
      }
      this.slices.set(signature, index);
    }
    return index.get(values) ?? [];
  }
}

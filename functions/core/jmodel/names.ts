import type { Infeasibility } from "../solvers/types.js";
import type { Atom } from "./values.js";

/** Where a flat name of the compiled problem comes from: its declaration (family) and index tuple. */
export interface NameOrigin {
  family: string;
  index: Atom[];
}

/**
 * The compiler's record of every flat name it generated, kept as it generates them, so that a result
 * can speak of `capacity["north"]` without parsing `capacity[north]` back (a string element may hold
 * brackets or commas; a number and its spelling would be indistinguishable).
 */
export interface ModelNames {
  constraints: Map<string, NameOrigin>;
  variables: Map<string, NameOrigin>;
}

/** The JSON form kept with an execution: `[flat name, family, ...index]` per name. */
export interface StoredModelNames {
  constraints: [string, string, ...Atom[]][];
  variables: [string, string, ...Atom[]][];
}

export const emptyModelNames = (): ModelNames => ({ constraints: new Map(), variables: new Map() });

export function storedModelNames(names: ModelNames): StoredModelNames {
  const rows = (m: Map<string, NameOrigin>) => [...m].map(([name, o]) => [name, o.family, ...o.index] as [string, string, ...Atom[]]);
  return { constraints: rows(names.constraints), variables: rows(names.variables) };
}

export function modelNamesOf(stored: StoredModelNames): ModelNames {
  const map = (rows: StoredModelNames["constraints"]) => new Map(rows.map(([name, family, ...index]) => [name, { family, index }]));
  return { constraints: map(stored.constraints), variables: map(stored.variables) };
}

/**
 * The infeasible subset in the modeller's words: each member whose flat name the compiler generated gets
 * its family and index tuple. Only the subset is mapped (it is what a modeller reads member by member);
 * a name the map lacks is left as it is.
 */
export function nameInfeasibility(infeasibility: Infeasibility, names: ModelNames): Infeasibility {
  return {
    ...infeasibility,
    constraints: infeasibility.constraints.map((c) => ({ ...c, ...names.constraints.get(c.name) })),
    variable_bounds: infeasibility.variable_bounds.map((b) => ({ ...b, ...names.variables.get(b.variable) })),
  };
}
